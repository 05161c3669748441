/** No lone surrogate (String.prototype.isWellFormed: Node 20, typed by the ES2024.String library). */
export const wellFormed = (text: string): boolean => text.isWellFormed();

/** Why `text` cannot be stored alike in both dialects (U+0000, a lone surrogate); empty when it can. */
export function textProblems(text: string): string[] {
  const problems: string[] = [];
  if (text.includes('\u0000')) problems.push('must not contain the character U+0000');
  if (!wellFormed(text)) problems.push('must be well-formed Unicode (it holds a lone surrogate)');
  return problems;
}
