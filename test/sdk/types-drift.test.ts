import fs from 'node:fs';
import { expect, it } from 'vitest';
import { generateSdkTypes, SDK_TYPES_FILE } from '../../scripts/generate-sdk-types.js';

it('the SDK types match the OpenAPI document the server serves (run `npm run sdk:types` after changing a route)', async () => {
  expect(fs.readFileSync(SDK_TYPES_FILE, 'utf8')).toBe(await generateSdkTypes());
});
