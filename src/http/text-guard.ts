import type { FastifyInstance } from 'fastify';
import { errors, MAX_LISTED_PROBLEMS, problemsMessage, type ValidationProblem } from '../errors.js';
import { textProblems, wellFormed } from '../lib/text.js';
import { escapePointer } from './validation.js';

/** Where a value sits in the request: its key under its parent's place; the root's key is its pointer prefix. */
interface Place {
  parent: Place | null;
  key: string;
}

function pointerOf(place: Place): string {
  const keys: string[] = [];
  let at: Place = place;
  for (; at.parent !== null; at = at.parent) keys.push(escapePointer(at.key));
  return [at.key, ...keys.reverse()].join('/');
}

/**
 * U+0000 in any text of the request (path, query, body) → 400. PostgreSQL cannot store it in text (it would
 * fail the request with a 500 there, and be stored on SQLite): refuse it alike everywhere, before anything runs.
 * Likewise a lone surrogate (`"\ud800"` is valid JSON but no Unicode text): each dialect stored its own
 * replacement, and SQLite kept bytes that are not UTF-8, which its JSON pages would have sent as they are.
 * Iterative, so a deeply nested garbage body cannot exhaust the stack. Every route, every string: the console's
 * and the token endpoint's too (which answers it in OAuth's shape, `invalid_request`); the walk ends only at the end
 * of the request or when MAX_LISTED_PROBLEMS places are found (the request is refused either way).
 */
export function registerNulGuard(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    const parts: [string, unknown][] = [
      ['/params', request.params],
      ['/query', request.query],
      ['', request.body],
    ];
    const problems: ValidationProblem[] = [];
    for (const [prefix, root] of parts) {
      // A place's JSON pointer is only written out for a problem: most requests have none.
      const stack: [Place, unknown][] = [[{ parent: null, key: prefix }, root]];
      while (stack.length > 0 && problems.length < MAX_LISTED_PROBLEMS) {
        const [place, value] = stack.pop()!;
        if (typeof value === 'string') {
          if (value.includes('\u0000') || !wellFormed(value)) {
            for (const message of textProblems(value)) problems.push({ path: pointerOf(place), message });
          }
        } else if (value !== null && typeof value === 'object') {
          for (const [k, v] of Object.entries(value)) {
            const child: Place = { parent: place, key: k };
            if (k.includes('\u0000') || !wellFormed(k)) {
              for (const message of textProblems(k)) problems.push({ path: pointerOf(child), message });
            }
            stack.push([child, v]);
          }
        }
      }
    }
    if (problems.length === 0) return done();
    done(errors.invalidRequest(problems, problemsMessage(problems)));
  });
}
