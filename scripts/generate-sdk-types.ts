import fs from 'node:fs';
import openapiTS, { type OpenAPI3 } from 'openapi-typescript';
import { isRecord } from '../src/lib/guards.js';
import { openapiDocument } from './openapi-document.js';

export const SDK_TYPES_FILE = new URL('../client/src/openapi.ts', import.meta.url);

/** An OpenAPI 3 document as far as openapi-typescript requires (it reads and checks the rest itself). */
function isOpenApi3(document: unknown): document is OpenAPI3 {
  return (
    isRecord(document) &&
    typeof document.openapi === 'string' &&
    isRecord(document.info) &&
    typeof document.info.title === 'string' &&
    typeof document.info.version === 'string'
  );
}

/** The SDK's types, generated from the server's OpenAPI document. */
export async function generateSdkTypes(): Promise<string> {
  const document = await openapiDocument();
  if (!isOpenApi3(document))
    throw new Error('the server serves no OpenAPI 3 document (openapi, info.title, info.version)');
  const types = await openapiTS(document, { exportType: false, alphabetize: true });
  return `// Generated from the server's OpenAPI document by \`npm run sdk:types\`. Do not edit by hand:\n// test/sdk/types-drift.test.ts fails when this file no longer matches what the server serves.\n${types}`;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  fs.writeFileSync(SDK_TYPES_FILE, await generateSdkTypes());
  process.stdout.write(`wrote ${SDK_TYPES_FILE.pathname}\n`);
}
