// Typing text on Android: `input text` for ASCII (with its own %s escaping under shell quoting), ADBKeyboard for the rest.

export const ADB_KEYBOARD_IME = "com.android.adbkeyboard/.AdbIME";

export const KEYCODE = {
  home: 3,
  back: 4,
  volume_up: 24,
  volume_down: 25,
  power: 26,
  tab: 61,
  space: 62,
  enter: 66,
  delete: 67,
  menu: 82,
  escape: 111,
  app_switch: 187,
} as const;

/** POSIX single-quoting: the device runs exec:/shell: commands through `sh -c`. */
export function shellQuote(arg: string): string {
  if (arg !== "" && /^[A-Za-z0-9_./:=@%+,-]+$/.test(arg)) return arg;
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

export function shellCommand(args: readonly string[]): string {
  return args.map(shellQuote).join(" ");
}

/** `input text` can only type printable ASCII; newline and tab become key presses. */
export function canUseInputText(text: string): boolean {
  return /^[\x20-\x7e\n\t]*$/.test(text);
}

export type TypingStep = { kind: "text"; arg: string } | { kind: "key"; keycode: number };

const MAX_INPUT_TEXT_CHUNK = 200;

/**
 * Android's `input text` turns "%s" into a space and has no escape for a literal "%s", so spaces are sent as
 * "%s" and a literal "%" followed by "s" is split into two calls. Newlines and tabs are key presses.
 */
export function planInputText(text: string): TypingStep[] {
  if (!canUseInputText(text)) throw new RangeError("planInputText only handles printable ASCII, newline and tab");
  const steps: TypingStep[] = [];
  let chunk = "";
  let chunkChars = 0;
  const flush = () => {
    if (chunk) steps.push({ kind: "text", arg: chunk });
    chunk = "";
    chunkChars = 0;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\n") {
      flush();
      steps.push({ kind: "key", keycode: KEYCODE.enter });
      continue;
    }
    if (c === "\t") {
      flush();
      steps.push({ kind: "key", keycode: KEYCODE.tab });
      continue;
    }
    // A literal "s" right after a literal "%" would be read as "%s" = space: start a new call.
    if (c === "s" && text[i - 1] === "%" && chunk.endsWith("%")) flush();
    chunk += c === " " ? "%s" : c;
    chunkChars++;
    if (chunkChars >= MAX_INPUT_TEXT_CHUNK && !chunk.endsWith("%")) flush();
  }
  flush();
  return steps;
}

/** What Android's `input text` does with its argument (for tests): "%s" → " ". */
export function androidInputTextDecode(arg: string): string {
  return arg.replaceAll("%s", " ");
}

export function inputTextCommands(text: string): string[] {
  return planInputText(text).map((s) =>
    s.kind === "text" ? shellCommand(["input", "text", s.arg]) : shellCommand(["input", "keyevent", String(s.keycode)]),
  );
}

function utf8Base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** ADBKeyboard takes base64 UTF-8 so no shell or intent-extra escaping can mangle the text. */
export function adbKeyboardTypeCommand(text: string): string {
  return shellCommand(["am", "broadcast", "-a", "ADB_INPUT_B64", "--es", "msg", utf8Base64(text)]);
}

export function adbKeyboardClearCommand(): string {
  return shellCommand(["am", "broadcast", "-a", "ADB_CLEAR_TEXT"]);
}

/** Parses `ime list -s` / `ime list -a -s` output: one IME id per line. */
export function parseImeList(output: string): string[] {
  return output
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => /^[\w.]+\/[\w.$]+$/.test(l));
}

/** `settings get secure default_input_method` prints "null" when unset. */
export function parseDefaultIme(output: string): string | null {
  const v = output.trim();
  return v && v !== "null" ? v : null;
}
