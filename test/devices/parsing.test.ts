/** Pure parts of the device layer: text cleaning, prompt detection, platform names, safety filters. */
import { describe, expect, it } from 'vitest';
import { cleanText } from '../../src/devices/text.js';
import { CONFIRMATIONS, DRIVERS, PAGER, detectPrompt, platformFromName } from '../../src/devices/drivers.js';
import { commandLines, controlCharRefusal, forbiddenMatch, isReadOnly } from '../../src/devices/filter.js';
import { extractOutput, findDeviceError, promptWithInput } from '../../src/devices/output.js';
import { platformHint } from '../../src/devices/target.js';
import { settingsSchema } from '../../src/config/schema.js';
import { extraNode } from './helpers.js';

describe('cleanText', () => {
  it.each([
    ['normalises line endings and drops lone CRs', 'a\r\nb\r\r\nc\r\0d\n\rPC1> ', 'a\nb\ncd\nPC1> '],
    ['drops ANSI', '\x1b[1mbold\x1b[0m \x1b[4mline\x1b[24m\x1b]0;title\x07x', 'bold linex'],
    ['applies backspaces', 'row1\n --More-- \b\b\b\b\b\b\b\b\b\b          \b\b\b\b\b\b\b\b\b\brow2', 'row1\nrow2'],
    ['trims trailing spaces but not the prompt', 'trailing   \nr1# ', 'trailing\nr1# '],
  ])('%s', (_what, raw, clean) => {
    expect(cleanText(raw)).toBe(clean);
  });
});

describe('prompts', () => {
  it.each([
    ['r1# ', 'cisco_ios', 'r1'],
    ['r1(config-router)# ', 'cisco_ios', 'r1'],
    ['R1>', 'cisco_ios', 'R1'],
    ['<HUAWEI>', 'huawei', 'HUAWEI'],
    ['[~CE1-ospf-1]', 'huawei', 'CE1'],
    ['admin@vsrx> ', 'juniper', 'vsrx'],
    ['admin@vsrx# ', 'juniper', 'vsrx'],
    ['root@box:~# ', 'linux', 'root'],
    ['PC1> ', 'vpcs', 'PC1'],
  ])('%s → %s', (line, platform, host) => {
    const d = detectPrompt(line);
    expect(d?.platform).toBe(platform);
    if (platform !== 'linux') expect(d?.host).toBe(host);
  });

  it('uses a hint over the guess and knows config mode per platform', () => {
    expect(detectPrompt('web1> ', 'vpcs')).toEqual({ platform: 'vpcs', host: 'web1' });
    expect(detectPrompt('web1> ')?.platform).toBe('cisco_ios');
    expect(DRIVERS.frr.inConfig('r1(config-if)# ')).toBe(true);
    expect(DRIVERS.frr.inConfig('r1# ')).toBe(false);
    expect(DRIVERS.huawei.inConfig('[R1-GigabitEthernet0/0/0]')).toBe(true);
    expect(DRIVERS.frr.promptFor('r1', '').test('r10# ')).toBe(false);
    expect(DRIVERS.frr.promptFor('r1', '').test('r1(config)# ')).toBe(true);
  });

  it('recognises pagers and confirmations', () => {
    for (const p of [' --More-- ', '  ---- More ----', '---(more 45%)---', '-- More --']) expect(PAGER.test(p)).toBe(true);
    expect(PAGER.test('more output')).toBe(false);
    const q = (l: string) => CONFIRMATIONS.findIndex((c) => c.re.test(l));
    expect(q('Proceed with reload? [confirm]')).toBe(0);
    expect(q('Are you sure? [yes/no]: ')).toBe(1);
    expect(q('Continue? [Y/N]:')).toBeGreaterThan(-1);
    expect(q('Save? (y/n) ')).toBe(2);
    expect(q('r1# ')).toBe(-1);
  });
});

describe('platform names', () => {
  it.each([
    ['cisco_ios_telnet', 'cisco_ios'],
    ['huawei_vrpv8', 'huawei'],
    ['juniper_junos', 'juniper'],
    ['FRR 8.4', 'frr'],
    ['Cisco IOSv', 'cisco_ios'],
    ['VPCS', 'vpcs'],
    ['mystery box', undefined],
  ])('names %s as platform %s', (name, platform) => {
    expect(platformFromName(name)).toBe(platform);
  });

  it('hints from a node: the tag over the template, then the node type', () => {
    expect(platformHint(extraNode('a', 1, { tags: ['device_type:huawei'], template_name: 'Cisco IOSv' }))).toBe('huawei');
    expect(platformHint(extraNode('a', 1, { node_type: 'vpcs' }))).toBe('vpcs');
    expect(platformHint(extraNode('a', 1, { node_type: 'docker' }))).toBe('linux');
  });
});

describe('safety filters', () => {
  const forbidden = settingsSchema.parse({}).forbidden_commands;
  it('blocks forbidden commands by case-insensitive prefix and by abbreviation', () => {
    expect(forbiddenMatch('traceroute 10.0.0.1', forbidden)).toBe('traceroute');
    expect(forbiddenMatch('DEBUG ip ospf', forbidden)).toBe('debug');
    expect(forbiddenMatch('deb ip ospf', forbidden)).toBe('debug');
    expect(forbiddenMatch('wr er', forbidden)).toBe('write erase');
    expect(forbiddenMatch('ping -f 10.0.0.1', forbidden)).toBe('ping -f');
    expect(forbiddenMatch('ping 10.0.0.1', forbidden)).toBeUndefined();
    expect(forbiddenMatch('show ip route', forbidden)).toBeUndefined();
    expect(forbiddenMatch('write memory', forbidden)).toBeUndefined();
    // configuration mode's exec escape: `do` (IOS, FRR), `run` (Junos)
    expect(forbiddenMatch('do reload', forbidden)).toBe('reload');
    expect(forbiddenMatch('DO  wr er', forbidden)).toBe('write erase');
    expect(forbiddenMatch('run debug all', forbidden)).toBe('debug');
    expect(forbiddenMatch('do show ip route', forbidden)).toBeUndefined();
    expect(forbiddenMatch('do', forbidden)).toBeUndefined();
  });

  it('accepts only read-only commands for the read tool', () => {
    expect(isReadOnly('show ip route', 'frr')).toBe(true);
    expect(isReadOnly('sh ip int br', 'cisco_ios')).toBe(true);
    expect(isReadOnly('display ip routing-table', 'huawei')).toBe(true);
    expect(isReadOnly('configure terminal', 'frr')).toBe(false);
    expect(isReadOnly('show run | redirect flash:x', 'cisco_ios')).toBe(false);
    expect(isReadOnly('show ip', 'vpcs')).toBe(true);
    expect(isReadOnly('ip 10.0.0.1/24', 'vpcs')).toBe(false);
    expect(isReadOnly('ip addr show', 'linux')).toBe(true);
    expect(isReadOnly('ip addr add 1.2.3.4/24 dev eth0', 'linux')).toBe(false);
    expect(isReadOnly('cat /etc/hosts; rm -rf /', 'linux')).toBe(false);
  });

  it('splits an entry into its lines and refuses any control character, which a line editor would obey', () => {
    expect(commandLines('show version\nconfigure terminal\r\nhostname X\r\n\n')).toEqual([
      'show version',
      'configure terminal',
      'hostname X',
    ]);
    expect(commandLines('interface lo\r description x')).toEqual(['interface lo', ' description x']);
    expect(commandLines('  \n')).toEqual([]);
    for (const [command, code] of [
      ['show \u0015reload', 'U+0015'], // Ctrl-U: erase the line typed so far
      ['show\u007f\u007f\u007f\u007freload', 'U+007F'], // DEL: backspace
      ['show\tip route', 'U+0009'], // tab: completion
      ['show version\u001b[A', 'U+001B'],
      ['show version\u0000', 'U+0000'],
      ['show \u009bversion', 'U+009B'], // C1 CSI
    ] as const)
      expect(controlCharRefusal(command)).toBe(`control character ${code} in the command (a command is one line of plain text)`);
    expect(controlCharRefusal('show ip ospf neighbor | include Full')).toBeUndefined();
    expect(controlCharRefusal('description Ünïcode — fine')).toBeUndefined();
  });
});

describe('device error lines', () => {
  it('mark a command error: unknown commands, incomplete ones, and a pipe FRR does not know', () => {
    const frr = DRIVERS.frr;
    expect(findDeviceError(frr, "FRRouting 8.4.4\n% Unknown action 'touch'", false)).toBe("% Unknown action 'touch'");
    expect(findDeviceError(frr, '% Unknown command: shwo version', false)).toBe('% Unknown command: shwo version');
    expect(findDeviceError(DRIVERS.cisco_ios, "% Invalid input detected at '^' marker.", false)).toBe(
      "% Invalid input detected at '^' marker.",
    );
    expect(findDeviceError(frr, 'FRRouting 8.4.4 (r1)', false)).toBeUndefined();
  });
});

describe("a command's output", () => {
  it("ends at the prompt that ended it, also when another client's command was typed at that prompt (a shared console)", () => {
    const ios = DRIVERS.cisco_ios.promptFor('R1', 'R1#');
    const shared = 'show clock\r\n*10:00 UTC\r\nR1# show version\r\nCisco IOS Software\r\nR1# ';
    expect(extractOutput(shared, 'show clock', ios, false, true)).toBe('*10:00 UTC');
    // IOS echoes with no space after the prompt
    expect(extractOutput('show clock\r\n*10:00 UTC\r\nR1#show version\r\nCisco IOS\r\nR1#', 'show clock', ios, false, true)).toBe(
      '*10:00 UTC',
    );
    // an output line that merely mentions the host is output
    expect(extractOutput('show run | i host\r\nhostname R1\r\nR1# ', 'show run | i host', ios, false, true)).toBe('hostname R1');
    const vpcs = DRIVERS.vpcs.promptFor('PC1', 'PC1> ');
    expect(extractOutput('show ip\r\nNAME : PC1[1]\r\nPC1> ping 10.0.0.1\r\n84 bytes\r\nPC1> ', 'show ip', vpcs, false, true)).toBe(
      'NAME : PC1[1]',
    );
  });

  it('knows a prompt with input typed at it only where the host fixes the prompt', () => {
    expect(promptWithInput(DRIVERS.frr.promptFor('r1', 'r1# '))!.test('r1(config)# router ospf')).toBe(true);
    expect(promptWithInput(DRIVERS.frr.promptFor('r1', 'r1# '))!.test('r1# ')).toBe(false);
    expect(promptWithInput(DRIVERS.huawei.promptFor('HW1', '<HW1>'))!.test('<HW1>display version')).toBe(true);
    expect(promptWithInput(DRIVERS.linux.promptFor('', 'lab@host:~$ '))!.test('lab@host:~$ ls')).toBe(true);
    // a shell prompt known only by its last `$`: without the end anchor it would match any line with a `$`
    expect(promptWithInput(DRIVERS.linux.promptFor('', '$ '))).toBeUndefined();
  });
});
