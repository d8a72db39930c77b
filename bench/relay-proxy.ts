// Figure 3: the relay against a bare node:http proxy, each its own process in front of the same emulator process.
// Capacity is a closed loop (N in flight, as fast as answered), singles and 100-award batches; the added latency is
// an open loop at half the proxy's measured single-award capacity (a constant arrival rate, as players arrive),
// where neither server is saturated and what the relay adds per request shows instead of its queue.
import type { ChildServer } from './lib/emulator-process.js';
import { runLoad, runOpenLoop, type LoadResult } from './lib/load.js';
import { adminToken, batch, single, tokens } from './lib/relay-requests.js';
import { row, type Row } from './lib/table.js';
import type { LoadSizes } from './relay-load.bench.js';

export interface Measured {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  cpuUsPerAward: number;
  awards: number;
}

/**
 * Runs each contender's load in turns (`rounds`), summing the results; CPU ms of each contender's process too. `ramp`:
 * untimed load just before each timed turn. A server that sat idle while the others took their turns starts its turn
 * slower: in six A/B runs of two to four turns (relays and the proxy as here), the first turn's CPU per award read 0-60 %
 * (median about 20 %) above the later turns', the proxy's up to 27 %; with 1,000 untimed awards before each turn the
 * turns read alike. A closed-loop turn here lasts about a second, so without the ramp it measured mostly that start.
 */
export async function inTurns(
  rounds: number,
  contenders: { name: string; server: ChildServer; load: (round: number) => Promise<LoadResult>; ramp?: () => Promise<unknown> }[],
): Promise<Map<string, Measured>> {
  const totals = new Map(contenders.map((c) => [c.name, { results: [] as LoadResult[], cpuMs: 0 }]));
  for (let r = 0; r < rounds; r++)
    for (const c of contenders) {
      await c.ramp?.();
      const cpu = await c.server.cpuMs();
      const result = await c.load(r);
      const total = totals.get(c.name)!;
      total.cpuMs += (await c.server.cpuMs()) - cpu;
      total.results.push(result);
    }
  return new Map(
    [...totals].map(([name, { results, cpuMs }]) => {
      const ms = results.reduce((a, r) => a + r.ms, 0);
      const units = results.reduce((a, r) => a + r.perSecond * (r.ms / 1000), 0);
      const notOk = results.reduce((a, r) => a + r.notOk, 0);
      if (notOk) throw new Error(`${name}: ${notOk} awards not delivered: ${results.flatMap((r) => r.failures).join(' | ')}`);
      // Percentiles of the rounds' percentiles would not be percentiles: take the worst round's (rounds are equal-sized).
      return [
        name,
        {
          perSecond: units / (ms / 1000),
          p50Ms: Math.max(...results.map((r) => r.p50Ms)),
          p99Ms: Math.max(...results.map((r) => r.p99Ms)),
          cpuUsPerAward: (cpuMs * 1000) / units,
          awards: units,
        },
      ];
    }),
  );
}

/**
 * The rows of figure 3, and the single-award results by contender (figure 4 compares `redis` with `relay` from the
 * same turns). `relayRedis` (Redis limiter, no idempotency record) and `relayRecord` (the same with the record on)
 * take their turns in the single-award runs: the record's cost, on against off.
 */
export async function relayVsProxy(
  sizes: LoadSizes,
  servers: { proxy: ChildServer; relay: ChildServer; relayRedis?: ChildServer | undefined; relayRecord?: ChildServer | undefined },
  log: (line: string) => void,
): Promise<{ rows: Row[]; singles: Map<string, Measured> }> {
  const { proxy, relay, relayRedis, relayRecord } = servers;
  const playerTokens = await tokens('p', sizes.players);
  const admin = await adminToken();
  const perRound = Math.ceil(sizes.singles / sizes.rounds);
  const make = (server: ChildServer, viaProxy: boolean, round: number) => (i: number) =>
    single(server.url, playerTokens[(i + round) % sizes.players]!, `p${(i + round) % sizes.players}`, viaProxy);
  const singles =
    (server: ChildServer, viaProxy: boolean, count = perRound) =>
    (round: number) =>
      runLoad({ count, concurrency: sizes.concurrency, make: make(server, viaProxy, round) });
  const relays = [relay, ...(relayRedis ? [relayRedis] : []), ...(relayRecord ? [relayRecord] : [])];
  // Warm-up: each server's JIT sees the path before timing.
  for (const [server, viaProxy] of [[proxy, true], ...relays.map((r) => [r, false] as const)] as const)
    await singles(server, viaProxy, Math.min(perRound, 1_000))(0);

  log('relay vs bare proxy: single awards, closed loop');
  const ramp = (server: ChildServer, viaProxy: boolean) => () => singles(server, viaProxy, sizes.ramp)(sizes.rounds);
  const one = await inTurns(sizes.rounds, [
    { name: 'proxy', server: proxy, load: singles(proxy, true), ramp: ramp(proxy, true) },
    { name: 'relay', server: relay, load: singles(relay, false), ramp: ramp(relay, false) },
    ...(relayRedis ? [{ name: 'redis', server: relayRedis, load: singles(relayRedis, false), ramp: ramp(relayRedis, false) }] : []),
    ...(relayRecord ? [{ name: 'record', server: relayRecord, load: singles(relayRecord, false), ramp: ramp(relayRecord, false) }] : []),
  ]);
  const rate = Math.max(1, Math.round(one.get('proxy')!.perSecond / 2));
  const openCount = Math.max(10, Math.round(rate * sizes.openLoopSeconds));
  log(`relay vs bare proxy: single awards, open loop at ${rate}/s`);
  const open = await inTurns(sizes.rounds, [
    { name: 'proxy', server: proxy, load: (round) => runOpenLoop({ rate, count: openCount, make: make(proxy, true, round) }) },
    { name: 'relay', server: relay, load: (round) => runOpenLoop({ rate, count: openCount, make: make(relay, false, round) }) },
  ]);
  log('relay vs bare proxy: 100-award batches');
  const perRoundBatches = Math.ceil(sizes.batches / sizes.rounds);
  const batches =
    (server: ChildServer, count = perRoundBatches) =>
    (round: number) =>
      runLoad({ count, concurrency: sizes.batchConcurrency, units: 100, make: (i) => batch(server.url, admin, (i + round) * 100, sizes.players) });
  for (const server of [proxy, relay]) await batches(server, Math.min(perRoundBatches, 4))(0);
  const batchRamp = (server: ChildServer) => () => batches(server, Math.max(1, Math.round(sizes.ramp / 100)))(sizes.rounds);
  const hundred = await inTurns(sizes.rounds, [
    { name: 'proxy', server: proxy, load: batches(proxy), ramp: batchRamp(proxy) },
    { name: 'relay', server: relay, load: batches(relay), ramp: batchRamp(relay) },
  ]);
  return { rows: [...figureRows(sizes, { one, open, hundred, rate }), ...recordRows(one)], singles: one };
}

function figureRows(
  sizes: LoadSizes,
  m: { one: Map<string, Measured>; open: Map<string, Measured>; hundred: Map<string, Measured>; rate: number },
): Row[] {
  const [p, r] = [m.one.get('proxy')!, m.one.get('relay')!];
  const [op, or] = [m.open.get('proxy')!, m.open.get('relay')!];
  const [bp, br] = [m.hundred.get('proxy')!, m.hundred.get('relay')!];
  const conc = `${sizes.concurrency} in flight, ${sizes.players.toLocaleString('en-US')} players`;
  const ms = (v: number) => Number(v.toFixed(2));
  const us = (v: number) => v.toFixed(0);
  const cpuNote = (a: Measured, b: Measured) => `relay process CPU ${us(a.cpuUsPerAward)} µs per award, proxy ${us(b.cpuUsPerAward)} µs`;
  return [
    row({
      section: '3',
      figure: `relay vs bare proxy: single awards/s (${conc})`,
      unit: 'awards/s',
      ours: r.perSecond,
      baseline: p.perSecond,
      ratio: r.perSecond / p.perSecond,
      target: '>= 0.7x',
      pass: r.perSecond / p.perSecond >= 0.7,
      note: `${cpuNote(r, p)}; closed-loop p50 ${r.p50Ms.toFixed(1)} against ${p.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} against ${p.p99Ms.toFixed(1)} ms`,
    }),
    row({
      section: '3',
      figure: 'relay vs bare proxy: single award process CPU per award',
      unit: 'µs',
      ours: r.cpuUsPerAward,
      baseline: p.cpuUsPerAward,
      ratio: r.cpuUsPerAward / p.cpuUsPerAward,
      target: '<= 2.5x',
      pass: r.cpuUsPerAward / p.cpuUsPerAward <= 2.5,
      note: `at half load (open loop): relay ${us(or.cpuUsPerAward)} µs, proxy ${us(op.cpuUsPerAward)} µs`,
    }),
    row({
      section: '3',
      figure: 'relay vs bare proxy: single award p50 latency',
      unit: 'ms',
      ours: ms(or.p50Ms),
      baseline: ms(op.p50Ms),
      target: 'info (open loop, as p99)',
    }),
    row({
      section: '3',
      figure: 'relay vs bare proxy: single award p99 latency',
      unit: 'ms',
      ours: ms(or.p99Ms),
      baseline: ms(op.p99Ms),
      target: 'added <= +5 ms',
      pass: or.p99Ms - op.p99Ms <= 5,
      note: `open loop at ${m.rate} awards/s (half the proxy's capacity), ${Math.round(or.awards).toLocaleString('en-US')} awards each; added p50 ${(or.p50Ms - op.p50Ms).toFixed(2)} ms, added p99 ${(or.p99Ms - op.p99Ms).toFixed(2)} ms`,
    }),
    row({
      section: '3',
      figure: `relay vs bare proxy: 100-award batches, awards/s (${sizes.batchConcurrency} in flight, admin, 100 players each)`,
      unit: 'awards/s',
      ours: br.perSecond,
      baseline: bp.perSecond,
      ratio: br.perSecond / bp.perSecond,
      target: '>= 0.7x',
      pass: br.perSecond / bp.perSecond >= 0.7,
      note: cpuNote(br, bp),
    }),
    row({
      section: '3',
      figure: 'relay vs bare proxy: 100-award batch process CPU per award',
      unit: 'µs',
      ours: br.cpuUsPerAward,
      baseline: bp.cpuUsPerAward,
      ratio: br.cpuUsPerAward / bp.cpuUsPerAward,
      target: '<= 2x',
      pass: br.cpuUsPerAward / bp.cpuUsPerAward <= 2,
    }),
    row({
      section: '3',
      figure: 'relay vs bare proxy: 100-award batch p99 latency',
      unit: 'ms',
      ours: ms(br.p99Ms),
      baseline: ms(bp.p99Ms),
      target: 'info (closed loop)',
      note: `p50 ${br.p50Ms.toFixed(1)} against ${bp.p50Ms.toFixed(1)} ms`,
    }),
  ];
}

/** The idempotency record's cost: the same single-award load, Redis limiter, record on against off (same turns). */
function recordRows(one: Map<string, Measured>): Row[] {
  const [on, off] = [one.get('record'), one.get('redis')];
  if (!on || !off) return [];
  return [
    row({
      section: '3',
      figure: 'idempotency record on vs off (Redis): relay process CPU per single award',
      unit: 'µs',
      ours: on.cpuUsPerAward,
      baseline: off.cpuUsPerAward,
      ratio: on.cpuUsPerAward / off.cpuUsPerAward,
      target: '<= 1.15x',
      pass: on.cpuUsPerAward / off.cpuUsPerAward <= 1.15,
      note: `${Math.round(on.perSecond)} against ${Math.round(off.perSecond)} awards/s; p50 ${on.p50Ms.toFixed(1)} against ${off.p50Ms.toFixed(1)} ms, p99 ${on.p99Ms.toFixed(1)} against ${off.p99Ms.toFixed(1)} ms`,
    }),
  ];
}
