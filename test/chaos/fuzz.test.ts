import { describe, expect, it } from 'vitest';
import { runFuzz } from './fuzz.js';
import { heapBack, runWireFuzz } from './wire-fuzz.js';

describe('fuzz: generated requests against relay and emulator (in-process)', () => {
  it('5,000 seeded requests: no 500, no crash, errors are { success: false, message }, no policy bypass, ledger invariants hold', {
    timeout: 90_000,
  }, async () => {
    const report = await runFuzz({ seed: 7, requests: 5000 });
    expect(report.failures).toEqual([]);
    expect(report.requests + report.unbuildable).toBe(5000);
    expect(report.requests).toBeGreaterThan(4500);
    // The oracle saw both sides and both outcomes: something was applied, and plenty was refused.
    expect(report.relayRequests).toBeGreaterThan(2000);
    expect(report.emulatorRequests).toBeGreaterThan(1000);
    expect(report.ledgerEntries).toBeGreaterThan(0);
    expect(Object.keys(report.statuses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404']));
  });

  it('2,000 raw requests on the wire to a relay process: no 500, no crash, still serving, heap back to its baseline', {
    timeout: 120_000,
  }, async () => {
    const report = await runWireFuzz({ seed: 11, requests: 2000 });
    console.log(
      `wire fuzz (npm test share): ${report.requests} requests in ${report.ms} ms; ${JSON.stringify(report.statuses)}; heap ${report.heapBaseline} -> ${report.heapAfter}`,
    );
    expect(report.failures).toEqual([]);
    expect(report.crashed).toBe(false);
    expect(report.requests).toBe(2000);
    // The generator reached past the parser into the relay's own checks, and some requests went all the way.
    expect(Object.keys(report.statuses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', 'cut']));
    expect(heapBack(report), `heap ${report.heapBaseline} -> ${report.heapAfter}`).toBe(true);
  });
});
