import type { ErrorObject } from 'ajv';
import { MAX_LISTED_PROBLEMS } from '../errors.js';
import { isRecord } from '../lib/guards.js';

/**
 * The cheap half of validating a body that failed: members a schema does not allow (`additionalProperties: false`)
 * and arrays longer than their `maxItems`, found by walking the body beside its schema. A body that has any of
 * these is answered with them alone, before ajv reports every problem (its `allErrors` would make one error object
 * per unknown member: 500,000 of them for a hostile body). At most MAX_LISTED_PROBLEMS are listed, the rest counted
 * without being written out; an over-long array is not walked. Past this check, the errors ajv can find are bounded
 * by the schema (maxItems × members), not by the body.
 */
export interface StructuralProblems {
  /** In ajv's form, so that they are reported like ajv's own (http/validation.ts). */
  errors: ErrorObject[];
  /** Found beyond the listed ones. */
  omitted: number;
}

const hasOwn = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key);
const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

export function structuralProblems(schema: unknown, data: unknown): StructuralProblems {
  const found: StructuralProblems = { errors: [], omitted: 0 };
  const add = (error: ErrorObject, count = 1) => {
    if (found.errors.length < MAX_LISTED_PROBLEMS) {
      found.errors.push(error);
      found.omitted += count - 1;
    } else found.omitted += count;
  };
  // Iterative: a deeply nested garbage body cannot exhaust the stack.
  const stack: [unknown, unknown, string][] = [[schema, data, '']];
  while (stack.length > 0) {
    const [node, value, path] = stack.pop()!;
    if (!isRecord(node) || value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      const limit = node.maxItems;
      if (typeof limit === 'number' && value.length > limit) {
        add({
          keyword: 'maxItems',
          instancePath: path,
          schemaPath: '#/maxItems',
          params: { limit },
          message: `must NOT have more than ${limit} items`,
          parentSchema: node,
        });
        continue;
      }
      if (isRecord(node.items))
        for (let i = value.length - 1; i >= 0; i--) stack.push([node.items, value[i], `${path}/${i}`]);
      continue;
    }
    const properties = isRecord(node.properties) ? node.properties : null;
    if (properties === null || !isRecord(value)) continue;
    if (node.additionalProperties === false) {
      let listed = 0;
      let full = found.errors.length >= MAX_LISTED_PROBLEMS;
      for (const key in value) {
        if (full) break;
        if (hasOwn(properties, key)) continue;
        listed++;
        add({
          keyword: 'additionalProperties',
          instancePath: path,
          schemaPath: '#/additionalProperties',
          params: { additionalProperty: key },
          message: 'must NOT have additional properties',
          parentSchema: node,
        });
        full = found.errors.length >= MAX_LISTED_PROBLEMS;
      }
      // Once the list is full, this object's other unknown members are counted, not walked: its size less its
      // known members and those listed.
      if (full) {
        const knownPresent = Object.keys(properties).filter((key) => hasOwn(value, key)).length;
        found.omitted += Math.max(0, Object.keys(value).length - knownPresent - listed);
      }
    }
    for (const key of Object.keys(properties)) {
      if (hasOwn(value, key)) stack.push([properties[key], value[key], `${path}/${escape(key)}`]);
    }
  }
  return found;
}
