import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { SvcClient, SvcApiError } from '../../client/src/index.js';
import { tempDir } from '../support/processes.js';
import { newJpeg, PDF } from '../support/receipts.js';
import { describeLive } from './live-server.js';

const run = promisify(execFile);
const BIN = new URL('../../bin/svc.js', import.meta.url).pathname;

describeLive('SDK and CLI: receipts', (s) => {
  it('uploads a receipt with the SDK, reads it, removes it; a wrong type is a typed error', async () => {
    const creds = await s.live.credentials(['accounting.record.admin', 'accounting.record.read']);
    const client = new SvcClient({
      baseUrl: s.live.url,
      clientId: creds.clientId,
      clientSecret: creds.clientSecret,
      maxRetries: 0,
    });
    const admin = await s.live.ctx.as(['accounting.record.admin'], creds.accountId);
    const record = await admin.newRecord();
    const bytes = await newJpeg();
    const answer = await client.receipts.upload(record.id, new Uint8Array(bytes), { contentType: 'image/jpeg' });
    expect(answer.receipt).toMatchObject({ content_type: 'image/jpeg', size_bytes: bytes.length });
    expect(answer.record.receipts?.map((r) => r.id)).toEqual([answer.receipt.id]);
    const got = await fetch(answer.receipt.download_uri.replace('http://127.0.0.1:8080', s.live.url));
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true);
    expect((await client.receipts.get(answer.receipt.id)).sha256).toBe(answer.receipt.sha256);

    const removed = await client.receipts.remove(record.id, answer.receipt.id);
    expect(removed.record.receipts).toEqual([]);

    const refused = await client.receipts
      .upload(record.id, new Uint8Array(Buffer.from('<svg/>')), { contentType: 'image/png' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SvcApiError);
    expect((refused as SvcApiError).status).toBe(415);
    expect((refused as SvcApiError).error_code).toBe('UNSUPPORTED_RECEIPT_TYPE');
  });

  it('uploads a receipt tied to no record with the SDK, which ingestion then names', async () => {
    const creds = await s.live.credentials(['accounting.record.admin', 'accounting.record.read']);
    const client = new SvcClient({
      baseUrl: s.live.url,
      clientId: creds.clientId,
      clientSecret: creds.clientSecret,
      maxRetries: 0,
    });
    const bytes = await newJpeg();
    const receipt = await client.receipts.upload(new Uint8Array(bytes));
    expect(receipt).toMatchObject({ content_type: 'image/jpeg', size_bytes: bytes.length });
    expect((await client.receipts.get(receipt.id)).sha256).toBe(receipt.sha256);
    const admin = await s.live.ctx.as(['accounting.record.admin', 'accounting.record.read'], creds.accountId);
    const record = await admin.newRecord({ receipt_ids: [receipt.id] });
    expect(record.receipts.map((r: any) => r.id)).toEqual([receipt.id]);
  });

  it('svc receipts add RECORD FILE uploads the file and prints the receipt; usage errors exit 2', async () => {
    const creds = await s.live.credentials(['accounting.record.admin', 'accounting.record.read']);
    const admin = await s.live.ctx.as(['accounting.record.admin', 'accounting.record.read'], creds.accountId);
    const record = await admin.newRecord();
    const file = path.join(tempDir('svc-receipts-'), 'invoice.pdf');
    fs.writeFileSync(file, PDF);
    const env = {
      ...process.env,
      SVC_URL: s.live.url,
      SVC_CLIENT_ID: creds.clientId,
      SVC_CLIENT_SECRET: creds.clientSecret,
    };
    const { stdout } = await run(process.execPath, [BIN, 'receipts', 'add', record.id, file], { env });
    const printed = JSON.parse(stdout.trim());
    expect(printed).toMatchObject({
      content_type: 'application/pdf',
      size_bytes: PDF.length,
      accounting_record_id: record.id,
      version: record.version + 1,
      thumbnail_uri: null,
    });
    const stored = await admin.get(`/v3/accounting/records/${record.id}`);
    expect(stored.body.receipts.map((r: any) => r.id)).toEqual([printed.id]);

    const usage = await run(process.execPath, [BIN, 'receipts', 'add', record.id], { env }).catch((e: unknown) => e);
    expect((usage as { code: number }).code).toBe(2);
  });
});
