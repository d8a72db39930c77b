const { runBurstBench } = await import(process.cwd() + '/bench/sdk-burst.bench.ts');
const b = await runBurstBench();
console.log(JSON.stringify({ ours: Math.round(b.oursMs), floor: Math.round(b.floorMs), ratio: b.ratio.toFixed(2), issued: Math.round(b.issuedMs) }));
process.exit(0);
