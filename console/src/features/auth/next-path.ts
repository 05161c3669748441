/** Where to go after signing in: a path of the console (never another site), else the overview. */
export function safeNextPath(next: string | null): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  if (next.startsWith('/sign-in') || next.startsWith('/set-password') || next.startsWith('/two-step/set-up'))
    return '/';
  return next;
}
