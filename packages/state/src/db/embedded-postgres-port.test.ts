// A free port can be taken between the moment it is picked and the moment Postgres binds it. Here the first port
// handed out is one this test already holds: the start must move on to a fresh port instead of failing.
import { mkdtempSync } from "node:fs";
import type * as Net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it, vi } from "vitest";

const held = vi.hoisted(() => ({ port: 0, handedOut: [] as number[] }));

vi.mock("node:net", async (importActual) => {
  const net = await importActual<typeof Net>();
  return {
    ...net,
    createServer: (...args: Parameters<typeof net.createServer>) => {
      const server = net.createServer(...args);
      const address = server.address.bind(server);
      server.address = () => {
        const real = address();
        // The first port the start picks is the held one, as if another process took it in between.
        const port = held.handedOut.length === 0 && held.port ? held.port : typeof real === "object" && real ? real.port : 0;
        held.handedOut.push(port);
        return typeof real === "object" && real ? { ...real, port } : real;
      };
      return server;
    },
  };
});

const { startEmbeddedPostgres } = await import("./embedded-postgres.ts");
const net = await vi.importActual<typeof Net>("node:net");
const blocker = net.createServer();
await new Promise<void>((ok) => blocker.listen(0, "127.0.0.1", ok));
held.port = (blocker.address() as Net.AddressInfo).port;
afterAll(() => new Promise<void>((ok) => blocker.close(() => ok())));

describe("embedded Postgres on a port taken meanwhile", () => {
  it("starts on a fresh port when the one it picked was taken before Postgres bound it", async () => {
    const lines: string[] = [];
    const server = await startEmbeddedPostgres({ dataDir: join(mkdtempSync(join(tmpdir(), "phoneloop-pgport-")), "data"), ephemeral: true, fast: true, onLog: (l) => lines.push(l) });
    try {
      expect(held.handedOut[0]).toBe(held.port);
      expect(server.port).not.toBe(held.port);
      expect(lines.some((l) => l.includes(`did not start on port ${held.port}; trying another free port`))).toBe(true);
      const client = new pg.Client({ connectionString: server.adminUrl });
      await client.connect();
      const { rows } = await client.query("SELECT 1 AS ok").finally(() => client.end());
      expect(rows).toEqual([{ ok: 1 }]);
    } finally {
      await server.stop();
    }
  });

  it("fails with the port in its message when the caller asked for that port", async () => {
    await expect(startEmbeddedPostgres({ dataDir: join(mkdtempSync(join(tmpdir(), "phoneloop-pgport-")), "data"), port: held.port, ephemeral: true, fast: true })).rejects.toThrow(
      new RegExp(`did not start on port ${held.port}`),
    );
  });
});
