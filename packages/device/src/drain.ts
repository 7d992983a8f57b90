// Which input commands a phone is still running, from `ps -A -o PID,ARGS`. A phone carries out a command to its end
// after the connection that sent it has gone: a tap queued on a lagging phone lands seconds after its sender died.
// Before a resumed run reads the screen after an action whose outcome is unknown, it waits until none is left.

/** The ps command line the phone is asked (toybox ps, Android 8 and later). */
export const RUNNING_COMMANDS_PS = "ps -A -o PID,ARGS";

// `input …` (the shell script), `cmd input …` (Android 13 and later exec it) and the Java class it starts
// (`app_process /system/bin com.android.commands.input.Input …`, older phones).
const INPUT_COMMAND = /^(\S*\/)?input(\s|$)|^(\S*\/)?cmd\s+input(\s|$)|com\.android\.commands\.input\.Input/;

/** The command lines of the input commands in `ps -A -o PID,ARGS` output. */
export function inputCommandsIn(psOutput: string): string[] {
  const found: string[] = [];
  for (const line of psOutput.split("\n")) {
    const m = /^\s*(\d+)\s+(.+?)\s*$/.exec(line);
    if (m && INPUT_COMMAND.test(m[2]!)) found.push(m[2]!);
  }
  return found;
}
