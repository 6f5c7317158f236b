import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** One call sst's components made to the CLI, as the stub received it. */
export interface RpcCall {
  method: string;
  args: Record<string, unknown>;
}

/** The asset bucket the stub's bootstrap names; functions' code objects go to it. */
export const MOCK_ASSET_BUCKET = "voxtrail-mock-sst-assets";

/**
 * A stand-in for the part of the sst CLI that `sst.aws.Function` and its bootstrap call over
 * JSON-RPC (`POST $SST_SERVER/rpc`): `Provider.Aws.Bootstrap` (the asset bucket and ECR
 * repository of a region) and `Runtime.Build` (bundle a handler; here: an empty directory to
 * zip, the handler name unchanged, since the build itself is esbuild's, not ours). Any other
 * method answers the CLI's "can't find method" error, which sst treats as not implemented.
 * Every call is recorded; `close()` stops the server and removes the empty bundle.
 */
export async function startCliRpcStub(): Promise<{ url: string; calls: RpcCall[]; close(): void }> {
  const calls: RpcCall[] = [];
  const bundle = mkdtempSync(join(tmpdir(), "voxtrail-mock-bundle-"));
  writeFileSync(join(bundle, "index.mjs"), "export const handler = undefined;\n");
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      const { method, params } = JSON.parse(body) as { method: string; params: [Record<string, unknown>] };
      const args = params[0];
      calls.push({ method, args });
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(answer(method, args, bundle)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close() {
      server.close();
      rmSync(bundle, { recursive: true, force: true });
    },
  };
}

function answer(
  method: string,
  args: Record<string, unknown>,
  bundle: string,
): { result?: unknown; error?: string } {
  if (method === "Provider.Aws.Bootstrap") {
    return {
      result: {
        asset: MOCK_ASSET_BUCKET,
        assetEcrRegistryId: "123456789012",
        assetEcrUrl: `123456789012.dkr.ecr.${String(args.region)}.amazonaws.com/sst-asset`,
        state: "voxtrail-mock-sst-state",
        appsyncHttp: "",
        appsyncRealtime: "",
      },
    };
  }
  if (method === "Runtime.Build") {
    return { result: { handler: args.handler, out: bundle, errors: [], sourcemaps: [] } };
  }
  return { error: `rpc: can't find method ${method}` };
}
