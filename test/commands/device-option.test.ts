/** `--device` of diff, rewind and checkpoint diff|restore: repeatable, each value a list separated by commas. */
import { describe, expect, it } from 'vitest';
import { deviceOption } from '../../src/commands/device-option.js';

describe('--device', () => {
  it('joins repeated values and comma lists, dropping blanks', () => {
    expect(deviceOption(['R1,R2', ' R3 ', 'R4,,'])).toEqual(['R1', 'R2', 'R3', 'R4']);
  });
  it('absent or empty means every device', () => {
    expect(deviceOption(undefined)).toBeUndefined();
    expect(deviceOption([])).toBeUndefined();
  });
});
