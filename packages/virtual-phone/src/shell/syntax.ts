// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- the ambient types must travel with this file into every package that imports the phone
/// <reference path="./mvdan-sh.d.ts" />
// The shell's syntax tree, parsed by mvdan/sh (mvdan-sh, the upstream parser compiled to JS) in mksh mode: Android's
// /system/bin/sh is mksh. Operator codes are read from the parser itself, so they never drift from its numbering.
import mvdan from "mvdan-sh";

const { syntax } = mvdan;
const parser = syntax.NewParser(syntax.Variant(syntax.LangMirBSDKorn));

/** A node of mvdan/sh's tree, read by field name: Stmts, Cmd, Args, Parts, Op, Redirs, … as the parser names them. */
export type Node = { readonly [field: string]: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

export class ShellSyntaxError extends Error {
  readonly code = "SHELL_SYNTAX";
}

/** The node's type name: CallExpr, BinaryCmd, IfClause, Lit, DblQuoted, ParamExp, … */
export function nodeType(n: Node): string {
  return syntax.NodeType(n) as string;
}

/** Parses a whole script or command line; a syntax error says where, as sh does. */
export function parseScript(src: string): Node[] {
  try {
    return parser.Parse(src, "").Stmts as Node[];
  } catch (e) {
    const text = (e as { Error?: () => string }).Error?.() ?? String(e);
    throw new ShellSyntaxError(`syntax error: ${text.replace(/^\d+:\d+: /, "")}`);
  }
}

/** True when the script only lacks its end (an open `if`, quote or loop): an interactive shell asks for more. */
export function isIncomplete(src: string): boolean {
  try {
    parser.Parse(src, "");
    return false;
  } catch (e) {
    return syntax.IsIncomplete(e) as boolean;
  }
}

function firstStmt(src: string): Node {
  return parser.Parse(src, "").Stmts[0] as Node;
}

function opOf(src: string, pick: (stmt: Node) => Node): number {
  return pick(firstStmt(src)).Op as number;
}

const arith = (src: string) => opOf(`echo $((${src}))`, (s) => s.Cmd.Args[1].Parts[0].X);

/** Operator codes by their spelling. */
export const OP = {
  and: opOf("a && b", (s) => s.Cmd),
  or: opOf("a || b", (s) => s.Cmd),
  pipe: opOf("a | b", (s) => s.Cmd),
} as const;

export const REDIRECT: Record<string, number> = Object.fromEntries(
  [">", ">>", "<", "<>", ">&", "<&", ">|", "<<<", "&>", "&>>"].map((op) => [op, opOf(`a ${op} b`, (s) => s.Redirs[0])]),
);
REDIRECT["<<"] = opOf("a <<E\nx\nE\n", (s) => s.Redirs[0]);
REDIRECT["<<-"] = opOf("a <<-E\nx\nE\n", (s) => s.Redirs[0]);

export const PARAM_OP: Record<string, number> = Object.fromEntries(
  [":-", "-", ":=", "=", ":+", "+", ":?", "?", "%%", "%", "##", "#"].map((op) => [op, opOf(`echo \${a${op}b}`, (s) => s.Cmd.Args[1].Parts[0].Exp)]),
);

export const ARITH_BINARY: Record<string, number> = Object.fromEntries(
  ["+", "-", "*", "/", "%", "**", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "&", "|", "^", "<<", ">>", "=", "+=", "-=", "*=", "/=", "%="].map((op) => [op, arith(`a ${op} b`)]),
);
export const ARITH_UNARY: Record<string, number> = {
  "!": arith("!a"),
  "-": arith("-a"),
  "+": arith("+a"),
  "~": arith("~a"),
  "++": arith("a++"),
  "--": arith("a--"),
};

const testOp = (src: string) => opOf(`[[ ${src} ]]`, (s) => s.Cmd.X);
/** `[[ … ]]` operators (mksh has no =~). */
export const TEST_BINARY: Record<string, number> = Object.fromEntries(
  ["&&", "||", "==", "=", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef"].map((op) => [op, testOp(`a ${op} b`)]),
);
export const TEST_UNARY: Record<string, number> = Object.fromEntries(
  ["!", "-e", "-f", "-d", "-s", "-r", "-w", "-x", "-L", "-h", "-p", "-S", "-b", "-c", "-z", "-n", "-t", "-u", "-g", "-k"].map((op) => [op, testOp(`${op} a`)]),
);

export const CASE_FALLTHROUGH = opOf("case a in a) b;& esac", (s) => s.Cmd.Items[0]);

/** The literal words of the first simple command (null when it has expansions), and whether it redirects stdin. */
export function firstCommand(src: string): { argv: string[]; stdinRedirected: boolean } | null {
  let stmt: Node | undefined;
  try {
    stmt = parseScript(src)[0];
  } catch {
    return null;
  }
  while (stmt && nodeType(stmt.Cmd ?? {}) === "BinaryCmd") stmt = stmt.Cmd.X as Node;
  if (!stmt?.Cmd || nodeType(stmt.Cmd) !== "CallExpr") return null;
  const argv: string[] = [];
  for (const w of stmt.Cmd.Args as Node[]) {
    const parts = w.Parts as Node[];
    if (parts.length !== 1) return null;
    const t = nodeType(parts[0]!);
    if (t === "Lit" || t === "SglQuoted") argv.push(parts[0]!.Value as string);
    else return null;
  }
  const inOps = [REDIRECT["<"], REDIRECT["<<"], REDIRECT["<<-"], REDIRECT["<<<"], REDIRECT["<>"]];
  return { argv, stdinRedirected: (stmt.Redirs as Node[]).some((r) => inOps.includes(r.Op as number)) };
}
