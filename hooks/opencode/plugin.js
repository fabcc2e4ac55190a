// planq's OpenCode plugin, written by `planq mcp install --host opencode`; reinstall rather than edit.
//
// It runs planq once per event below: one JSON object on stdin (every payload also carries
// "directory"), env PLANQ_HOST=opencode and PLANQ_PROJECT_DIR=<directory>; stdout is one JSON
// object or empty. The tool hooks run `HOOK <event> --host opencode` when planq-hook is installed,
// everything else `PLANQ hook <event> --host opencode`.
//
//   event          stdin                                          reply
//   pre-tool-use   {tool, sessionID, callID, args, parentID?,     {decision:"deny", reason}: throw reason (the model
//                  rewrites:true, permission:{global, agents}}    sees it as the tool's error); {decision:"allow",
//                                                                 warning?, command?} or empty: run, warning added to
//                                                                 the output; command replaces args.command (the
//                                                                 shell command runs in planq's sandbox)
//   post-tool-use  {tool, sessionID, callID, args}                ignored
//   session-start  {sessionID, parentID?, source}                 {context}: added to the system prompt of every
//                  source: "startup" (session created here),      request of the session
//                  "resume" (an older session), "compact" (after a compaction)
//   pre-compact    {sessionID, parentID?, messages}               {context}: added to the compaction prompt
//   stop           {sessionID, parentID?, messages}               {nudge}: sent as a user message (main sessions,
//                  (on session.idle)                              not under `opencode run`, which exits on idle)
//   session-end    {sessionID, reason:"deleted"}                  ignored
//
// messages is client.session.messages(…).data: [{info, parts}]. The gate fails closed: when
// pre-tool-use cannot run, times out or answers anything else, the tool call is blocked.
import { execFileSync } from "node:child_process";

const PLANQ = /*PLANQ*/ "planq";
const HOOK = /*HOOK*/ "";
const TIMEOUT_MS = 10000;
const GATE_FAILED = "planq gate: blocked this call because the gate hook failed: ";
const TITLE_PROMPT = "You are a title generator"; // OpenCode's title request gets no context
const HEADLESS = process.argv[2] === "run"; // `opencode run` exits when the session goes idle

export const PlanqPlugin = async ({ directory, client }) => {
  const parents = new Map(); // sessionID -> parentID, "" for a main session
  const created = new Set(); // sessions created while this plugin ran
  const contexts = new Map(); // sessionID -> Promise of its session-start context
  const compacted = new Set(); // sessions whose next request re-runs session-start
  const warnings = new Map(); // callID -> the gate's warning, for the tool's output
  let permission; // Promise of the user's permission config {global, agents}: OpenCode judges it on the command it runs
  const perms = () => (permission ??= Promise.resolve().then(() => client.config.get()).then(({ data: d }) =>
    d ? { global: d.permission, agents: Object.values(d.agent ?? {}).map((a) => a?.permission).filter((p) => p !== undefined) } : undefined,
  ).catch(() => undefined));

  const run = (event, payload) => {
    const tool = HOOK && (event === "pre-tool-use" || event === "post-tool-use");
    const [bin, ...args] = tool ? [HOOK, event] : [PLANQ, "hook", event];
    let out;
    try {
      out = execFileSync(bin, [...args, "--host", "opencode"], {
        input: JSON.stringify({ ...payload, directory }),
        env: { ...process.env, PLANQ_HOST: "opencode", PLANQ_PROJECT_DIR: directory },
        timeout: TIMEOUT_MS, maxBuffer: 32 << 20, stdio: ["pipe", "pipe", "pipe"],
      }).toString().trim();
    } catch (e) {
      const why = e.code === "ETIMEDOUT" ? `timed out after ${TIMEOUT_MS / 1000} s` : e.message.split("\n")[0];
      const stderr = String(e.stderr ?? "").trim().split("\n").pop();
      throw new Error(`planq hook ${event}: ${why}${stderr ? ": " + stderr : ""}`);
    }
    if (out === "") return {};
    const reply = JSON.parse(out);
    if (reply === null || typeof reply !== "object" || Array.isArray(reply)) throw new Error(`planq hook ${event}: not a JSON object: ${out.slice(0, 200)}`);
    return reply;
  };
  const quiet = async (event, f) => { try { return await f(); } catch (e) { console.error(`planq ${event}: ${e.message}`); } };
  const parentOf = async (id) => {
    if (!parents.has(id)) {
      const s = await client.session.get({ path: { id } });
      if (!s.data) throw new Error(`session ${id} not found`);
      parents.set(id, s.data.parentID ?? "");
    }
    return parents.get(id) || undefined;
  };
  const messages = async (id) => {
    const r = await client.session.messages({ path: { id } });
    if (!r.data) throw new Error(`messages of session ${id}: ${JSON.stringify(r.error)}`);
    return r.data;
  };

  return {
    "tool.execute.before": async (input, output) => {
      let reply;
      try {
        const parentID = await parentOf(input.sessionID).catch(() => undefined);
        reply = run("pre-tool-use", { tool: input.tool, sessionID: input.sessionID, callID: input.callID, args: output.args, parentID,
          rewrites: true, permission: await perms() });
      } catch (e) {
        throw new Error(GATE_FAILED + e.message);
      }
      if (reply.decision === "deny") throw new Error(String(reply.reason || "planq gate: denied"));
      if (reply.decision !== undefined && reply.decision !== "allow") throw new Error(`${GATE_FAILED}unknown decision ${JSON.stringify(reply.decision)}`);
      if (reply.command !== undefined) {
        // OpenCode runs the args object it passed in: change it, never replace it.
        if (typeof reply.command !== "string" || typeof output.args?.command !== "string") throw new Error(`${GATE_FAILED}cannot run ${input.tool} in the sandbox`);
        try { output.args.command = reply.command; } catch {}
        if (output.args.command !== reply.command) throw new Error(`${GATE_FAILED}cannot run ${input.tool} in the sandbox: its arguments cannot be changed`);
      }
      if (reply.warning) warnings.set(input.callID, String(reply.warning));
    },
    "tool.execute.after": (input, output) => quiet("post-tool-use", () => {
      const warning = warnings.get(input.callID);
      if (warning !== undefined) {
        warnings.delete(input.callID);
        output.output = `${output.output ?? ""}\n\n${warning}`;
      }
      run("post-tool-use", { tool: input.tool, sessionID: input.sessionID, callID: input.callID, args: input.args });
    }),
    "experimental.chat.system.transform": async (input, output) => {
      const id = input.sessionID;
      if (!id || String(output.system[0] ?? "").startsWith(TITLE_PROMPT)) return;
      if (!contexts.has(id) || compacted.has(id)) {
        const source = compacted.delete(id) ? "compact" : created.has(id) ? "startup" : "resume";
        contexts.set(id, quiet("session-start", async () =>
          run("session-start", { sessionID: id, parentID: await parentOf(id), source }).context));
      }
      const context = await contexts.get(id);
      if (context) output.system.push(String(context));
      else contexts.delete(id); // failed or empty: ask again on the next request
    },
    "experimental.session.compacting": async (input, output) => {
      const id = input.sessionID;
      const reply = await quiet("pre-compact", async () =>
        run("pre-compact", { sessionID: id, parentID: await parentOf(id), messages: await messages(id) }));
      if (reply?.context) output.context.push(String(reply.context));
    },
    event: ({ event }) => quiet(event.type, async () => {
      const p = event.properties ?? {};
      if (event.type === "session.created") {
        created.add(p.info.id);
        parents.set(p.info.id, p.info.parentID ?? "");
      }
      if (event.type === "session.compacted") compacted.add(p.sessionID);
      if (event.type === "session.deleted") {
        contexts.delete(p.info.id);
        run("session-end", { sessionID: p.info.id, reason: "deleted" });
      }
      if (event.type !== "session.idle") return;
      const id = p.sessionID, parentID = await parentOf(id);
      const reply = run("stop", { sessionID: id, parentID, messages: await messages(id) });
      if (!reply.nudge || parentID || HEADLESS) return;
      // promptAsync queues the turn and returns; prompt would wait for the whole turn.
      const body = { parts: [{ type: "text", text: String(reply.nudge) }] };
      const r = await client.session.promptAsync({ path: { id }, body });
      if (r?.error) throw new Error(`nudge: ${JSON.stringify(r.error)}`);
    }),
  };
};
