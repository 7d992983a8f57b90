import { describe, expect, it } from "vitest";
import {
  adbKeyboardTypeCommand,
  androidInputTextDecode,
  canUseInputText,
  inputTextCommands,
  KEYCODE,
  parseDefaultIme,
  parseImeList,
  planInputText,
  shellCommand,
  shellQuote,
} from "./input-text.ts";

/** A tiny POSIX `sh` word splitter for single quotes, enough to check what the device shell hands to `input`. */
function shWords(cmd: string): string[] {
  const words: string[] = [];
  let cur = "";
  let inWord = false;
  for (let i = 0; i < cmd.length; i++) {
    const c = cmd[i]!;
    if (c === "'") {
      const end = cmd.indexOf("'", i + 1);
      cur += cmd.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === "\\") {
      cur += cmd[++i];
      inWord = true;
    } else if (c === " ") {
      if (inWord) words.push(cur);
      cur = "";
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

/** Replays the plan the way the phone would: shell splits, `input text` decodes %s, keyevents append. */
function typedOnPhone(text: string): string {
  let out = "";
  for (const cmd of inputTextCommands(text)) {
    const [prog, sub, arg] = shWords(cmd);
    expect(prog).toBe("input");
    if (sub === "text") out += androidInputTextDecode(arg!);
    else out += Number(arg) === KEYCODE.enter ? "\n" : Number(arg) === KEYCODE.tab ? "\t" : "?";
  }
  return out;
}

describe("shell quoting", () => {
  it("leaves safe words bare and single-quotes the rest", () => {
    expect(shellQuote("com.example/.Main")).toBe("com.example/.Main");
    expect(shellQuote("")).toBe("''");
    expect(shellQuote("a b")).toBe("'a b'");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shWords(shellCommand(["echo", "it's $HOME `x` \"q\" & ; | > *"]))).toEqual(["echo", "it's $HOME `x` \"q\" & ; | > *"]);
  });
});

describe("input text planning", () => {
  it.each([
    "hello",
    "hello world",
    "a  b   c",
    "100% sure",
    "50%s off",
    "%%s%s",
    "it's \"quoted\" $HOME `id` & | ; < > ( ) * ? [ ] { } ~ # ! \\",
    "line one\nline two\tcol",
    "x".repeat(450),
  ])("types %j exactly", (text) => {
    expect(typedOnPhone(text)).toBe(text);
  });

  it("never leaves a literal %s that Android would turn into a space", () => {
    for (const step of planInputText("a%sb%s")) if (step.kind === "text") expect(androidInputTextDecode(step.arg)).not.toContain(" ");
  });

  it("knows which text needs ADBKeyboard", () => {
    expect(canUseInputText("plain ASCII ~!@#")).toBe(true);
    expect(canUseInputText("移动 AI 智能体")).toBe(false);
    expect(canUseInputText("café")).toBe(false);
    expect(() => planInputText("中文")).toThrow(RangeError);
  });
});

describe("ADBKeyboard", () => {
  it("sends UTF-8 base64 so no escaping can mangle the text", () => {
    const words = shWords(adbKeyboardTypeCommand("移动 AI 智能体 'x'"));
    expect(words.slice(0, 6)).toEqual(["am", "broadcast", "-a", "ADB_INPUT_B64", "--es", "msg"]);
    expect(Buffer.from(words[6]!, "base64").toString("utf8")).toBe("移动 AI 智能体 'x'");
  });

  it("parses ime lists and the default IME", () => {
    expect(parseImeList("com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME\ncom.android.adbkeyboard/.AdbIME\n")).toEqual([
      "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME",
      "com.android.adbkeyboard/.AdbIME",
    ]);
    expect(parseDefaultIme("null\n")).toBeNull();
    expect(parseDefaultIme("com.android.adbkeyboard/.AdbIME\n")).toBe("com.android.adbkeyboard/.AdbIME");
  });
});
