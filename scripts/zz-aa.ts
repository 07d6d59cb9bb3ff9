import { spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import { startTestServer } from "../tests/support/test-server";
const CLK = 100;
async function cpu(pid: number) { const s = await fs.readFile(`/proc/${pid}/stat`, "utf8"); const f = s.slice(s.lastIndexOf(")") + 2).split(" "); return (Number(f[11]) + Number(f[12])) / CLK; }
const modes = process.argv.slice(2);
const servers = [];
for (const m of modes) servers.push({ m, s: await startTestServer({ env: { TRUST_PROXY: "loopback", ANALYTICS: m.replace(/\d/, ""), MALLOC_ARENA_MAX: "2", MALLOC_MMAP_THRESHOLD_: "131072" } }) });
const wrk = (url: string, d: number) => spawnSync("/usr/bin/wrk", ["-t2", "-c50", `-d${d}s`, "-H", "User-Agent: Mozilla/5.0 (Linux; Android 14) Chrome/126 Mobile Safari/537.36", "-H", "X-Forwarded-For: 203.0.113.9", "-H", "Accept-Encoding: br", url + "/"], { encoding: "utf8" }).stdout;
for (const { s } of servers) wrk(s.url, 2);
const res: Record<string, number[]> = {};
for (let r = 0; r < 5; r++) for (const { m, s } of (r % 2 ? [...servers].reverse() : servers)) {
  const c0 = await cpu(s.pid); const out = wrk(s.url, 4); const c1 = await cpu(s.pid);
  const n = Number(/(\d+) requests in/.exec(out)![1]);
  (res[m] ??= []).push(Math.round((c1 - c0) * 1e6 / n * 10) / 10);
}
console.log(res);
for (const { s } of servers) await s.stop();
