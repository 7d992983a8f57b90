// A byte stream (TCP socket, WebSocket) as an ADB packet connection, as the @yume-chan/adb docs describe for
// custom `AdbDaemonDevice`s: deserialize packets on the way in, serialize them on the way out.
import { AdbPacket, AdbPacketSerializeStream, type AdbDaemonConnection } from "@yume-chan/adb";
import { MaybeConsumable, pipeFrom, StructDeserializeStream, type ReadableStream } from "@yume-chan/stream-extra";

export interface ByteSink {
  /** Sends bytes; the buffer may be reused by the caller once this resolves. */
  write(bytes: Uint8Array): void | Promise<void>;
  close(): void | Promise<void>;
}

export function packetConnectionOverBytes(readable: ReadableStream<Uint8Array>, sink: ByteSink): AdbDaemonConnection {
  return {
    readable: readable.pipeThrough(new StructDeserializeStream(AdbPacket)) as AdbDaemonConnection["readable"],
    writable: pipeFrom(
      new MaybeConsumable.WritableStream<Uint8Array>({
        write: (chunk) => sink.write(chunk),
        close: () => sink.close(),
        abort: () => sink.close(),
      }),
      new AdbPacketSerializeStream(),
    ),
  };
}
