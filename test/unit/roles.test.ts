import { describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/modules/auth/scopes.js';
import { ROLE_SCOPES } from '../../src/modules/users/roles.js';

describe('console roles', () => {
  it('gives ACCOUNT_ADMIN every scope the service knows, and the other roles a part of them', () => {
    expect([...ROLE_SCOPES.ACCOUNT_ADMIN].sort()).toEqual([...ALL_SCOPES].sort());
    for (const role of ['BOOKKEEPER', 'READ_ONLY'] as const) {
      for (const scope of ROLE_SCOPES[role]) expect(ALL_SCOPES).toContain(scope);
    }
    // READ_ONLY only reads.
    expect(ROLE_SCOPES.READ_ONLY.every((s) => s.endsWith('.read'))).toBe(true);
  });
});
