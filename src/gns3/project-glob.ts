/**
 * `--projects GLOB`: the controller's projects whose names match a shell-style pattern
 * (`student-*`, `lab-0?`, `[ab]-lab`), case-insensitively as project names are matched
 * elsewhere (./resolve.ts), in natural order (student-2 before student-10). Pure.
 */

/** The pattern as an anchored regular expression: `*` any run, `?` one character, `[…]` a class. */
export function globRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) re += '\\[';
      else {
        const body = glob.slice(i + 1, end).replace(/\\/g, '\\\\');
        re += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`;
        i = end;
      }
    } else re += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'i');
}

export function matchProjects<P extends { name: string }>(projects: readonly P[], glob: string): P[] {
  const re = globRegExp(glob);
  return projects.filter((p) => re.test(p.name)).sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
}
