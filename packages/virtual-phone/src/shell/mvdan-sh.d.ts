// mvdan-sh ships no types; the shell reads its tree through syntax.ts only.
declare module "mvdan-sh" {
  const mvdan: { syntax: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  export default mvdan;
}
