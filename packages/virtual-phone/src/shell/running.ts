// The commands a phone is running now, per phone. A command runs to its end after the client that started it has
// gone (adbd does not stop a plain command when its stream closes, and a lagging phone may still be carrying out a
// tap seconds later); `ps` and `pidof` list what is still running, so a client can ask the phone before it reads it.
export interface RunningCommand {
  pid: number;
  /** The command as it was started: its name and arguments. */
  argv: string[];
}

const byPhone = new WeakMap<object, Map<number, RunningCommand>>();
/** Process ids of commands, above the ids of the phone's apps and system processes. */
let nextPid = 21_000;

/** Records a command as running on `phone`; the function it returns records its end. */
export function startCommand(phone: object, argv: string[]): () => void {
  let running = byPhone.get(phone);
  if (!running) byPhone.set(phone, (running = new Map()));
  const pid = nextPid++;
  running.set(pid, { pid, argv: [...argv] });
  return () => void running.delete(pid);
}

/** The commands still running on `phone`, oldest first. */
export function runningCommands(phone: object): RunningCommand[] {
  return [...(byPhone.get(phone)?.values() ?? [])];
}
