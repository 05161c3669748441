import { expect, it } from 'vitest';
import { ADMIN } from './support/accounting.js';
import { describeEachDialect, type TestContext } from './support/context.js';
import { errorBody, ISO_MICROS } from './support/expect.js';
import { EXPORT_MAPPING, EXPORTS, exportBook, exportChart, exported } from './support/exports.js';

const AUDIT = '/internal/v1/audit-events';

/** The stored mapping row of the account, if any. */
const storedMapping = ({ db }: TestContext, accountId: string) =>
  db.direct.selectFrom('account_export_mappings').selectAll().where('account_id', '=', accountId).executeTakeFirst();

const DEFAULTS = {
  account_field_id: null,
  balancing_accounts: {
    CARD_LIABILITY: 'Liabilities:Card',
    BANK: 'Assets:Bank',
    REIMBURSEMENTS_PAYABLE: 'Liabilities:Reimbursements Payable',
    REIMBURSEMENT_CLEARING: 'Assets:Reimbursement Clearing',
    ACCOUNTS_RECEIVABLE: 'Assets:Accounts Receivable',
    ACCOUNTS_PAYABLE: 'Liabilities:Accounts Payable',
    BILL_PAY_CLEARING: 'Assets:Bill Pay Clearing',
  },
  dimension_fields: { department: null, class: null, location: null },
  tracking_fields: [],
  home_currency: 'USD',
  quickbooks_multicurrency: false,
  updated_at: null,
};

/** The stored export mapping (docs/exports.md, "The stored mapping"). */
describeEachDialect('exports: the mapping stored per account', (t) => {
  const setUp = async () => {
    const api = await t.ctx.as([...ADMIN, 'audit.read']);
    const chart = await exportChart(api);
    return { api, chart, ...(await exportBook(api, chart)) };
  };
  const onDay = { posted_from: '2026-06-11', posted_to: '2026-06-11' };

  it('answers the defaults until set; a PUT replaces it, stored and logged as account.settings_changed', async () => {
    const { api, chart } = await setUp();
    expect((await api.get(EXPORT_MAPPING)).body).toEqual(DEFAULTS);
    const gl = chart.gl.field.svc_id;
    const dept = chart.dept.field.svc_id;
    const body = {
      account_field_id: gl,
      balancing_accounts: { CARD_LIABILITY: 'Liabilities:2100-Amex', BANK: 'Assets:1000 Operating Bank' },
      dimension_fields: { class: dept, location: null },
      tracking_fields: [dept],
    };
    const set = await api.put(EXPORT_MAPPING, body);
    expect(set.status, set.text).toBe(200);
    const answer = {
      account_field_id: gl,
      balancing_accounts: {
        ...DEFAULTS.balancing_accounts,
        CARD_LIABILITY: 'Liabilities:2100-Amex',
        BANK: 'Assets:1000 Operating Bank',
      },
      dimension_fields: { department: null, class: dept, location: null },
      tracking_fields: [dept],
      home_currency: 'USD',
      quickbooks_multicurrency: false,
      updated_at: expect.stringMatching(ISO_MICROS),
    };
    expect(set.body).toEqual(answer);
    expect((await api.get(EXPORT_MAPPING)).body).toEqual(set.body);
    const stored = {
      account_field_id: gl,
      balancing_accounts: { CARD_LIABILITY: 'Liabilities:2100-Amex', BANK: 'Assets:1000 Operating Bank' },
      dimension_fields: { class: dept },
      tracking_fields: [dept],
    };
    expect(JSON.parse((await storedMapping(t.ctx, api.accountId))!.mapping_json)).toEqual(stored);

    // The answer put back is the same mapping; an empty body puts the defaults back.
    const again = await api.put(EXPORT_MAPPING, { ...set.body, updated_at: undefined });
    expect([again.status, { ...again.body, updated_at: null }]).toEqual([200, { ...answer, updated_at: null }]);
    const cleared = await api.put(EXPORT_MAPPING, {});
    expect([cleared.status, { ...cleared.body, updated_at: null }]).toEqual([200, DEFAULTS]);

    const log = await api.get(AUDIT, { 'action[]': 'account.settings_changed' });
    expect(log.status, log.text).toBe(200);
    const details = log.body.items.map((e: any) => [e.request_id, e.target, e.details]);
    expect(details).toHaveLength(3);
    expect(details[2]).toEqual([
      set.headers['x-request-id'],
      { type: 'account', id: api.accountId },
      {
        export_mapping_before: {
          account_field_id: null,
          balancing_accounts: {},
          dimension_fields: {},
          tracking_fields: [],
        },
        export_mapping: stored,
      },
    ]);
    expect(details[0][2].export_mapping).toEqual({
      account_field_id: null,
      balancing_accounts: {},
      dimension_fields: {},
      tracking_fields: [],
    });
  });

  it('refuses each bad member with a pointer to it (404 for a field the account lacks), and stores nothing', async () => {
    const { api, chart } = await setUp();
    const gl = chart.gl.field.svc_id;
    const stranger = await t.ctx.as([...ADMIN]);
    const theirs = (await exportChart(stranger)).dept.field.svc_id;
    // Fields the account lacks (its own, or none): 404, as every route naming another account's object answers.
    const unknown = await api.put(EXPORT_MAPPING, {
      account_field_id: 'fld_nope',
      dimension_fields: { department: gl, class: theirs },
      tracking_fields: [chart.dept.field.svc_id, 'fld_gone'],
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(
      errorBody('NOT_FOUND', {
        message: `Fields fld_nope (/account_field_id), ${theirs} (/dimension_fields/class), fld_gone (/tracking_fields/1) not found.`,
        details: {
          not_found_field_ids: ['fld_nope', theirs, 'fld_gone'],
          errors: [
            { path: '/account_field_id', message: 'is not a field of the account (fld_nope)' },
            { path: '/dimension_fields/class', message: `is not a field of the account (${theirs})` },
            { path: '/tracking_fields/1', message: 'is not a field of the account (fld_gone)' },
          ],
        },
      }),
    );
    const refusals: [unknown, { path: string; message: string }[]][] = [
      [
        { account_field_id: gl, tracking_fields: [gl] },
        [
          {
            path: '/tracking_fields/0',
            message: 'is the GL account field (account_field_id), which is never a dimension',
          },
        ],
      ],
      [
        { balancing_accounts: { CARD_LIABILITY: 'Cards:Amex' } },
        [{ path: '/balancing_accounts/CARD_LIABILITY', message: expect.stringMatching(/^must match the pattern/) }],
      ],
      [
        { balancing_accounts: { CARD: 'Liabilities:Amex' } },
        [{ path: '/balancing_accounts/CARD', message: 'is not allowed' }],
      ],
      [
        { tracking_fields: [gl, gl] },
        [{ path: '/tracking_fields', message: 'must not repeat an item: items 1 and 0 are the same' }],
      ],
      [
        { dimension_fields: { cost_center: gl } },
        [{ path: '/dimension_fields/cost_center', message: 'is not allowed' }],
      ],
    ];
    for (const [body, errors] of refusals) {
      const res = await api.put(EXPORT_MAPPING, body);
      expect([res.status, JSON.stringify(body)], res.text).toEqual([400, JSON.stringify(body)]);
      expect(res.body).toEqual(errorBody('INVALID_REQUEST', { details: { errors } }));
    }
    expect(await storedMapping(t.ctx, api.accountId)).toBeUndefined();
    expect((await api.get(AUDIT, { 'action[]': 'account.settings_changed' })).body.items).toEqual([]);
    expect((await api.get(EXPORT_MAPPING)).body).toEqual(DEFAULTS);
  });

  it('every scope that exports reads it; only the admin scope sets it; another account has its own', async () => {
    const owner = await t.ctx.as([...ADMIN]);
    const reader = await t.ctx.as(['accounting.record.read'], owner.accountId);
    const writer = await t.ctx.as(['accounting.record.write'], owner.accountId);
    const reviewer = await t.ctx.as(['accounting.record.review'], owner.accountId);
    const admin = await t.ctx.as(['accounting.record.admin'], owner.accountId);
    for (const caller of [reader, writer, admin]) expect((await caller.get(EXPORT_MAPPING)).status).toBe(200);
    expect((await reviewer.get(EXPORT_MAPPING)).status).toBe(403);
    const body = { balancing_accounts: { CARD_LIABILITY: 'Liabilities:2100-Amex' } };
    for (const caller of [reader, writer, reviewer]) {
      const refused = await caller.put(EXPORT_MAPPING, body);
      expect([refused.status, refused.body.error_code]).toEqual([403, 'FORBIDDEN']);
    }
    expect(await storedMapping(t.ctx, owner.accountId)).toBeUndefined();
    expect((await admin.put(EXPORT_MAPPING, body)).status).toBe(200);
    expect((await reader.get(EXPORT_MAPPING)).body.balancing_accounts.CARD_LIABILITY).toBe('Liabilities:2100-Amex');
    const stranger = await t.ctx.as(['accounting.record.admin']);
    expect((await stranger.get(EXPORT_MAPPING)).body).toEqual(DEFAULTS);
  });

  it('books every export where the request does not say otherwise: balancing accounts, dimension columns, tracking', async () => {
    const { api, chart, expense } = await setUp();
    const dept = chart.dept.field.svc_id;
    const set = await api.put(EXPORT_MAPPING, {
      balancing_accounts: { CARD_LIABILITY: 'Liabilities:800-Card' },
      dimension_fields: { class: dept, location: dept },
      tracking_fields: [dept],
    });
    expect(set.status, set.text).toBe(200);

    // Xero takes the stored code, and the Department as its one tracking category.
    expect(await exported(api, { format: 'xero', ...onDay })).toBe(
      [
        'Narration,Date,Description,AccountCode,TaxRate,Amount,TrackingName1,TrackingOption1,TrackingName2,TrackingOption2',
        `${expense.id} Vendor H,11/06/2026,food,6010,Tax Exempt,100.50,Department,"Sales, EMEA",,`,
        `${expense.id} Vendor H,11/06/2026,"Team ""dinner""",7500,Tax Exempt,71.25,,,,`,
        `${expense.id} Vendor H,11/06/2026,"Team ""dinner""",800,Tax Exempt,-171.75,,,,`,
        '',
      ].join('\r\n'),
    );
    // QuickBooks' Class and Location: the Department's value, as mapped.
    const no = expense.id.slice(-21);
    expect(await exported(api, { format: 'quickbooks', ...onDay })).toBe(
      [
        'Journal No,Journal Date,Currency,Memo,Account Name,Description,Debits,Credits,Name,Class,Location',
        `${no},06/11/2026,USD,${expense.id},Meals,food,100.50,,Vendor H,"Sales, EMEA","Sales, EMEA"`,
        `${no},06/11/2026,USD,${expense.id},Other G&A,"Team ""dinner""",71.25,,Vendor H,,`,
        `${no},06/11/2026,USD,${expense.id},Card,"Team ""dinner""",,171.75,Vendor H,,`,
        '',
      ].join('\r\n'),
    );
    // The journal books the stored card account; a request's own balancing account wins over it.
    const journal = await exported(api, { format: 'hledger', ...onDay });
    expect(journal).toContain('\n    Liabilities:800 Card  -171.75 USD');
    const overridden = await exported(api, {
      format: 'hledger',
      ...onDay,
      balancing_accounts: { CARD_LIABILITY: 'Liabilities:Amex' },
    });
    expect(overridden).toContain('\n    Liabilities:Amex  -171.75 USD');
    expect(overridden).not.toContain('800 Card');
  });

  it('a stored GL account field is the one booked; a request naming another field overrides it', async () => {
    const { api, chart, expense } = await setUp();
    // Department as the GL field: the lines coded only with GL Account have none, and are refused as such.
    expect((await api.put(EXPORT_MAPPING, { account_field_id: chart.dept.field.svc_id })).status).toBe(200);
    const refused = await api.post(EXPORTS, { format: 'hledger', ...onDay });
    expect(refused.status).toBe(422);
    expect(refused.body.details.records[0].accounting_record_id).toBe(expense.id);
    expect(refused.body.details.records[0].problems).toEqual([
      `line 2 (${expense.line_items[1].id}) has no GL account`,
    ]);
    const text = await exported(api, { format: 'hledger', ...onDay, account_field_id: chart.gl.field.svc_id });
    expect(text).toContain('Expenses:6010 Meals');
  });
});
