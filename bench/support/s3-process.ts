// An S3-compatible store (s3rver) in its own process, so a benchmark can count its CPU apart from its own: prints
// "s3 on http://127.0.0.1:<port>" once the bucket named by argv[3] exists in the folder argv[2].
import S3rver from "s3rver";

const [dir, bucket] = process.argv.slice(2);
if (!dir || !bucket) throw new Error("usage: s3-process.ts <folder> <bucket>");
const s3 = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: dir, configureBuckets: [{ name: bucket, configs: [] }] });
const { port } = await s3.run();
console.log(`s3 on http://127.0.0.1:${port}`);
process.on("SIGTERM", () => void s3.close().then(() => process.exit(0)));
