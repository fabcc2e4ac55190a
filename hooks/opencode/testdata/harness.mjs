// Runs planq's OpenCode plugin outside OpenCode, under the Bun that OpenCode
// embeds (BUN_BE_BUN=1 opencode harness.mjs …), for plugin_test.go:
//
//   harness.mjs PLUGIN CASE   (CASE is a JSON file)
//
// CASE: {argv2?, config?, sessions: {id: {parentID?}}, messages: [...], steps: [...]}; a step is
// {hook, input, output, frozen?} for a hook (frozen: output.args cannot be changed), or {event} for the event hook. It prints one JSON object:
// {results: [{output, sameArgs} | {error}], prompts: [{id, text}], logs: [console.error lines]}.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [plugin, casePath] = process.argv.slice(2);
const c = JSON.parse(readFileSync(casePath, "utf8"));
if (c.argv2 !== undefined) process.argv[2] = c.argv2;
const logs = [], prompts = [];
console.error = (...a) => logs.push(a.join(" "));
const client = {
  config: { get: async () => (c.config === null ? { error: { name: "Unavailable" } } : { data: c.config ?? {} }) },
  session: {
    get: async ({ path }) => (c.sessions?.[path.id] ? { data: { id: path.id, ...c.sessions[path.id] } } : { error: { name: "NotFound" } }),
    messages: async () => ({ data: c.messages ?? [] }),
    promptAsync: async ({ path, body }) => { prompts.push({ id: path.id, text: body.parts[0].text }); return {}; },
  },
};
const { PlanqPlugin } = await import(pathToFileURL(plugin).href);
const hooks = await PlanqPlugin({ directory: c.directory, worktree: c.directory, client });
const results = [];
for (const s of c.steps) {
  try {
    const args = s.output?.args;
    if (s.frozen) Object.freeze(args); // args OpenCode would not let a hook change
    if (s.event) await hooks.event({ event: s.event });
    else await hooks[s.hook](s.input, s.output);
    // sameArgs: OpenCode runs the args object it passed in, so a hook must change it, not replace it.
    results.push({ output: s.output ?? null, sameArgs: s.output?.args === args });
  } catch (e) {
    results.push({ error: e.message });
  }
}
process.stdout.write(JSON.stringify({ results, prompts, logs }) + "\n");
