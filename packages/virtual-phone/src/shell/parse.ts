// A small POSIX-ish command line parser: quotes, escapes, pipes, && || ;, and redirections.

export interface Redirect {
  fd: 0 | 1 | 2;
  op: ">" | ">>" | "<" | ">&";
  target: string; // file path, or "1"/"2" for >&
}
export interface SimpleCommand {
  argv: string[];
  redirects: Redirect[];
}
export type Pipeline = SimpleCommand[];
/** A list of pipelines joined by ;, && or ||; `op` is the operator before this pipeline. */
export interface ListItem {
  op: ";" | "&&" | "||";
  pipeline: Pipeline;
}

export class ShellSyntaxError extends Error {
  readonly code = "SHELL_SYNTAX";
}

type Token = { kind: "word"; value: string } | { kind: "op"; value: string; pos: number };

export function tokenize(line: string, env: Record<string, string> = {}): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let word = "";
  let inWord = false;
  const push = () => {
    if (inWord) tokens.push({ kind: "word", value: word });
    word = "";
    inWord = false;
  };
  const expandVar = (): string => {
    // $NAME or ${NAME} or $? (exit status is provided in env["?"])
    let name = "";
    if (line[i + 1] === "{") {
      const end = line.indexOf("}", i + 2);
      if (end === -1) throw new ShellSyntaxError("syntax error: bad substitution");
      name = line.slice(i + 2, end);
      i = end + 1;
    } else if (line[i + 1] === "?") {
      name = "?";
      i += 2;
    } else {
      let j = i + 1;
      while (j < line.length && /[A-Za-z0-9_]/.test(line[j]!)) j++;
      name = line.slice(i + 1, j);
      if (!name) {
        i++;
        return "$";
      }
      i = j;
    }
    return env[name] ?? "";
  };
  while (i < line.length) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) throw new ShellSyntaxError("syntax error: unterminated quoted string");
      word += line.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      inWord = true;
      i++;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === "\\" && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) {
          word += line[i + 1];
          i += 2;
        } else if (line[i] === "$") {
          word += expandVar();
        } else {
          word += line[i];
          i++;
        }
      }
      if (i >= line.length) throw new ShellSyntaxError("syntax error: unterminated quoted string");
      i++;
    } else if (c === "\\") {
      if (i + 1 < line.length) word += line[i + 1];
      inWord = true;
      i += 2;
    } else if (c === "$") {
      word += expandVar();
      inWord = true;
    } else if (c === " " || c === "\t" || c === "\n") {
      push();
      i++;
    } else if (c === "#" && !inWord) {
      break; // comment
    } else if ("|&;<>".includes(c)) {
      // fd-prefixed redirect: 2> 1> 2>&1
      if ((c === ">" || c === "<") && inWord && /^[012]$/.test(word)) {
        const fd = word;
        word = "";
        inWord = false;
        const two = line.slice(i, i + 2);
        const op = two === ">>" || two === ">&" ? two : c;
        tokens.push({ kind: "op", value: fd + op, pos: i });
        i += op.length;
        continue;
      }
      push();
      const two = line.slice(i, i + 2);
      if (two === "&&" || two === "||" || two === ">>" || two === ">&") {
        tokens.push({ kind: "op", value: two, pos: i });
        i += 2;
      } else {
        tokens.push({ kind: "op", value: c, pos: i });
        i++;
      }
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  push();
  return tokens;
}

export function parseCommandLine(line: string, env: Record<string, string> = {}): ListItem[] {
  const tokens = tokenize(line, env);
  const list: ListItem[] = [];
  let op: ListItem["op"] = ";";
  let pipeline: Pipeline = [];
  let cmd: SimpleCommand = { argv: [], redirects: [] };
  const endCommand = (required: boolean) => {
    if (cmd.argv.length === 0 && cmd.redirects.length === 0) {
      if (required) throw new ShellSyntaxError("syntax error: unexpected operator");
      return;
    }
    pipeline.push(cmd);
    cmd = { argv: [], redirects: [] };
  };
  const endPipeline = (next: ListItem["op"]) => {
    endCommand(false);
    if (pipeline.length) list.push({ op, pipeline });
    else if (next !== ";") throw new ShellSyntaxError(`syntax error: unexpected "${next}"`);
    pipeline = [];
    op = next;
  };
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.kind === "word") {
      cmd.argv.push(t.value);
      continue;
    }
    const v = t.value;
    if (v === "|") endCommand(true);
    else if (v === "&&" || v === "||" || v === ";") endPipeline(v);
    else if (v === "&") endPipeline(";"); // background jobs run in the foreground here
    else {
      const m = /^([012]?)(>>|>&|>|<)$/.exec(v);
      if (!m) throw new ShellSyntaxError(`syntax error: unexpected "${v}"`);
      const next = tokens[k + 1];
      if (!next || next.kind !== "word") throw new ShellSyntaxError("syntax error: redirection without a target");
      k++;
      const opv = m[2] as Redirect["op"];
      const fd = (m[1] ? Number(m[1]) : opv === "<" ? 0 : 1) as 0 | 1 | 2;
      cmd.redirects.push({ fd, op: opv, target: next.value });
    }
  }
  endPipeline(";");
  return list;
}

/**
 * Splits a command line at its first top-level ;, &&, || or & so each part is expanded only when it runs
 * (`false; echo $?` must see the status of `false`). Returns null when there is no separator.
 */
export function splitFirst(line: string): { head: string; op: ";" | "&&" | "||"; rest: string } | null {
  const t = tokenize(line).find((x) => x.kind === "op" && (x.value === ";" || x.value === "&&" || x.value === "||" || x.value === "&"));
  if (!t || t.kind !== "op") return null;
  return { head: line.slice(0, t.pos), op: t.value === "&" ? ";" : (t.value as ";" | "&&" | "||"), rest: line.slice(t.pos + t.value.length) };
}
