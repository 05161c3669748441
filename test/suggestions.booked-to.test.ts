import { expect, it } from 'vitest';
import { ruleChart } from './support/coding-rules.js';
import { describeEachDialect } from './support/context.js';
import { history, suggestion, suggestionsOf } from './support/suggestions.js';

describeEachDialect('coding suggestions: a vendor’s records that book elsewhere', (t) => {
  it('learns a vendor’s payments from its payments and its bills from its bills; one kind alone speaks as before', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    // Twilio: bills booked to Software, the payments of them to another account (here 6010), more payments than bills.
    const bill = { type: 'BILL_EXPENSE' };
    const payment = { type: 'BILL_EXPENSE_PAYMENT' };
    await history(api, [
      { vendor: 'Twilio', codes: [set(gl, 2)], extra: bill },
      { vendor: 'Twilio', codes: [set(gl, 0)], extra: payment },
      { vendor: 'Twilio', codes: [set(gl, 0)], extra: payment },
      { vendor: 'Twilio', codes: [set(gl, 0)], extra: payment },
      // Uber: card spend only.
      { vendor: 'Uber', codes: [set(gl, 1)] },
      { vendor: 'Uber', codes: [set(gl, 1)] },
    ]);
    const [newBill, newPayment, ride] = await api.newRecords([
      { ...bill, vendor: { id: 'v', name: 'Twilio' } },
      { ...payment, vendor: { id: 'v', name: 'Twilio' } },
      { vendor: { id: 'v', name: 'Uber' } },
    ]);
    const gls = async (record: any) =>
      (await suggestionsOf(api, record.id)).suggestions.filter((s: any) => s.field_id === gl.field.svc_id);
    // Of all four, the payments' account would win; of the bills alone, the bill's.
    expect(await gls(newBill)).toEqual([
      suggestion(newBill.line_items[0].id, gl, 2, {
        confidence: 1,
        signal: 'VENDOR',
        reason: 'The last record of vendor Twilio booked to expense was coded 6030 Software',
        matching_records: 1,
        coded_records: 1,
      }),
    ]);
    expect(await gls(newPayment)).toEqual([
      suggestion(newPayment.line_items[0].id, gl, 0, {
        confidence: 1,
        signal: 'VENDOR',
        reason: '3 of the last 3 records of vendor Twilio booked to bank (cash) were coded 6010 Meals',
        matching_records: 3,
        coded_records: 3,
      }),
    ]);
    // All of Uber's history books where the ride does: its whole history, said as before.
    expect(await gls(ride)).toEqual([
      suggestion(ride.line_items[0].id, gl, 1, {
        confidence: 1,
        signal: 'VENDOR',
        reason: '2 of the last 2 records of vendor Uber were coded 6020 Travel',
        matching_records: 2,
        coded_records: 2,
      }),
    ]);
  });
});
