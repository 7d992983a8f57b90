// Bytes as base64 for JSON (blob uploads). Hand-written because Uint8Array.toBase64 is not in Node 20 and
// btoa takes a binary string; chunks keep String.fromCharCode under the engine's argument limit.
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
