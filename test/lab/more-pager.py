#!/usr/bin/python3
"""A Cisco-style ` --More-- ` pager for lab routers (VTYSH_PAGER).

vtysh pipes each daemon command's output here. We print one screen (terminal
rows - 1 lines), then ` --More-- ` and read a key from the controlling terminal:
space = next screen, Enter = one more line, q / Ctrl-C = drop the rest. When
the output fits on one screen no prompt appears. Lines end in CRLF through the
pty (ONLCR), like on a real console.
"""
import os
import sys
import termios
import tty

PROMPT = ' --More-- '
ERASE = '\b' * len(PROMPT) + ' ' * len(PROMPT) + '\b' * len(PROMPT)


def main() -> None:
    tty_fd = os.open('/dev/tty', os.O_RDWR)
    try:
        rows = os.get_terminal_size(tty_fd).lines or 24
    except OSError:
        rows = 24
    page = max(rows - 1, 2)
    out = sys.stdout
    src = sys.stdin
    budget = page
    line = src.readline()
    while line:
        out.write(line)
        budget -= 1
        line = src.readline()
        if not line:
            break
        if budget > 0:
            continue
        # No echo before the prompt shows: a key pressed right away must not be echoed.
        old = termios.tcgetattr(tty_fd)
        try:
            tty.setcbreak(tty_fd)
            out.write(PROMPT)
            out.flush()
            key = os.read(tty_fd, 1)
        finally:
            termios.tcsetattr(tty_fd, termios.TCSADRAIN, old)
        out.write(ERASE)
        if key in (b' ',):
            budget = page
        elif key in (b'\r', b'\n'):
            budget = 1
        else:
            # q, Ctrl-C or anything else: drop the rest, like IOS.
            for _ in src:
                pass
            out.write('\n')
            break
    out.flush()


if __name__ == '__main__':
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        pass
