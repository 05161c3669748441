import fs from 'node:fs';
import openapiTS from 'openapi-typescript';
import { openapiDocument } from './openapi-document.js';

export const SDK_TYPES_FILE = new URL('../client/src/openapi.ts', import.meta.url);

/** The SDK's types, generated from the server's OpenAPI document. */
export async function generateSdkTypes(): Promise<string> {
  const document = await openapiDocument();
  const types = await openapiTS(document as never, { exportType: false, alphabetize: true });
  return `// Generated from the server's OpenAPI document by \`npm run sdk:types\`. Do not edit by hand:\n// test/sdk/types-drift.test.ts fails when this file no longer matches what the server serves.\n${types}`;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  fs.writeFileSync(SDK_TYPES_FILE, await generateSdkTypes());
  process.stdout.write(`wrote ${SDK_TYPES_FILE.pathname}\n`);
}
