/** nginx serving saved response bytes, the yardstick of the load part of `npm run bench`. */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { rawGet } from "./http-raw";
import { freePort } from "./production-server";

export const NGINX = "/usr/sbin/nginx";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** nginx on a free port, serving `dir`/www (/br/… with Content-Encoding: br), or why it could not start. */
export async function startNginx(dir: string): Promise<{ url: string; stop(): Promise<void> } | { error: string }> {
  const port = await freePort();
  const conf = path.join(dir, "nginx.conf");
  // Root may run this: let the workers read the temp dir either way.
  const user = process.getuid?.() === 0 ? "user root;\n" : "";
  await fs.writeFile(
    conf,
    `${user}daemon off;
worker_processes auto;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events {}
http {
  access_log off;
  sendfile on;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:${port};
    location / { root ${dir}/www; default_type text/html; }
    location /br/ { root ${dir}/www; default_type text/html; add_header Content-Encoding br; }
  }
}
`,
  );
  const check = spawnSync(NGINX, ["-t", "-q", "-p", dir, "-e", `${dir}/error.log`, "-c", conf], { encoding: "utf8" });
  if (check.status !== 0) return { error: `nginx -t failed: ${check.stderr}` };
  const child = spawn(NGINX, ["-p", dir, "-e", `${dir}/error.log`, "-c", conf], { stdio: "ignore" });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      await rawGet(`${url}/`);
      return {
        url,
        async stop() {
          child.kill("SIGQUIT"); // graceful stop of the master process
          await exited;
        },
      };
    } catch {
      await sleep(50);
    }
  }
  child.kill("SIGKILL");
  return { error: `nginx did not start: ${await fs.readFile(`${dir}/error.log`, "utf8").catch(() => "")}` };
}
