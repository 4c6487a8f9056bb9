#!/usr/bin/env python3
"""Writes an agent's own parts, as recorded, for its profile.

    scripts/agent-builtins.py claude-code|claude-code-2.1.332|codex|codex-0.171|openclaw|gemini|pi|opencode [OUT.json]

Reads the agent's recorded fixture (tests/fixtures/agents/AGENT/: the proxy's
capture of a real run, already redacted by scripts/record-agent.sh) and writes
assets/profiles/<profile>.builtin.json: the parts of the first request that do
not come from the user's files (the agent's built-in system prompt, its tool
definitions, its built-in skills and subagents, its runtime context), with the
values that depend on the run put back as placeholders ({root} the working
folder, {project_slug} Claude Code's project folder name, {home}, {today}).
The user's own files, skills and subagents are left out: the profile renders
them from the workspace. Nothing here is run or fetched; the script only reads
the committed fixture, so the file can be checked against it (tests/builtin.rs).
"""
import json
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOME = "/home/user"


def capture(agent, name="capture.jsonl"):
    path = os.path.join(REPO, "tests", "fixtures", "agents", agent, name)
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def meta(agent):
    path = os.path.join(REPO, "tests", "fixtures", "agents", agent, "meta.json")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def placeholders(text, root, today):
    slug = root.replace("/", "-")
    text = text.replace(root, "{root}").replace(slug, "{project_slug}")
    text = text.replace(HOME, "{home}")
    # Claude Code's environment line, written from the folder it runs in.
    for git in ("true", "false"):
        text = text.replace("Is a git repository: " + git, "Is a git repository: {is_git_bool}")
    return text.replace(today, "{today}")


def recorded_os(request, pattern):
    """The recording machine's system and kernel release as the agent
    wrote it (Node's os.type() and os.release()): the loader puts the
    user's own in its place."""
    m = re.search(pattern, json.dumps(request, ensure_ascii=False))
    return m.group(1) if m else None


def claude_code(fixture="claude-code"):
    reqs = capture(fixture)
    first = reqs[0]["request"]
    root = HOME + "/project"
    today = re.search(r"Today's date is (\d{4}-\d\d-\d\d)\.", json.dumps(first)).group(1)
    fill = lambda t: placeholders(t, root, today)
    ws = os.path.join(REPO, "tests", "fixtures", "agents", fixture, "workspace")
    user_skills = set(os.listdir(os.path.join(ws, ".claude", "skills")))
    user_agents = {n[:-3] for n in os.listdir(os.path.join(ws, ".claude", "agents"))}
    blocks = []
    names = ["billing header", "identity", "system prompt"]
    for name, s in zip(names, first["system"]):
        blocks.append({
            "name": name,
            "category": "system_prompt",
            "placement": "system",
            "cache": "cache_control" in s,
            "text": fill(s["text"]),
        })
    # The first user message: the memory reminder (the user's files), then
    # the agent's own reminders, then what the user typed.
    user0 = first["messages"][0]["content"]
    memory = [b for b in user0 if "Codebase and user instructions" in b.get("text", "")]
    assert len(memory) == 1, "the memory reminder is in the first user message"
    for b in user0[1:-1]:
        blocks.append({
            "name": "attribution reminder" if "Attribution" in b["text"] else "reminder",
            "category": "system_prompt",
            "placement": "first_user_message",
            "cache": False,
            "text": fill(b["text"]),
        })
    tools = [{"category": "system_tools", "definition": t} for t in first["tools"]]
    # The deferred tools' own definitions, as /context counted them (each in a
    # count_tokens request of its own): not sent until ToolSearch loads them.
    deferred = []
    sent = {t["name"] for t in first["tools"]}
    for line in capture(fixture, "context-capture.jsonl"):
        for t in line["request"].get("tools", []):
            if len(line["request"]["tools"]) == 1 and t["name"] not in sent:
                deferred.append({"category": "deferred_tools", "definition": t})
    deferred.sort(key=lambda t: t["definition"]["name"])
    # The system-role message after the first user message: the environment,
    # the deferred tools' names, the subagents, the skills, the date.
    sysmsg = [m for m in first["messages"] if m["role"] == "system"]
    assert len(sysmsg) == 1
    text = sysmsg[0]["content"][0]["text"]
    head, rest = text.split("\nAvailable agent types for the Agent tool:\n", 1)
    agents_text, rest = rest.split("\n\nWhen you launch multiple agents", 1)
    mid, rest = ("When you launch multiple agents" + rest).split(
        "\n\nThe following skills are available for use with the Skill tool:\n\n", 1)
    skills_text, tail = rest.rsplit("\n\nToday's date is ", 1)
    entries = lambda t: [l for l in t.split("\n") if l.startswith("- ")]

    def listed(lines, own, category, kind):
        out = []
        for l in lines:
            name = l[2:].split(":", 1)[0]
            if name in own:
                continue
            out.append({"kind": kind, "name": name, "category": category, "text": l})
        return out

    agents = listed(entries(agents_text), user_agents, "system_prompt", "agent")
    skills = listed(entries(skills_text), user_skills, "skills", "skill")
    # A skill entry may run over several lines (claude-api's TRIGGER/SKIP).
    for s in skills:
        start = skills_text.index(s["text"])
        nxt = [skills_text.find("\n- ", start + 1)]
        end = min([n for n in nxt if n != -1] or [len(skills_text)])
        s["text"] = skills_text[start:end]
    # On --resume, a memory file changed since the session began is sent
    # again at the start of the next user message, in a reminder of its own.
    resume = None
    for line in reqs:
        for msg in line["request"]["messages"][1:]:
            for b in msg["content"] if isinstance(msg["content"], list) else []:
                t = b.get("text", "")
                if t.startswith("<system-reminder>\nInstruction files were re-read"):
                    title = t.split("\n\nContents of ", 1)[0]
                    resume = {"title": title, "between": "\n\n", "footer": "\n</system-reminder>\n",
                              "how": "at the start of the next user message, in a reminder"}
                    assert t.endswith(resume["footer"]), t[-40:]
                    break
            if resume:
                break
        if resume:
            break
    assert resume, "the recording has a resumed turn with a changed memory file"
    m = meta(fixture)
    return {
        "schema": 1,
        "agent": "Claude Code",
        "release": m["version"].split()[0],
        "recorded_from": f"tests/fixtures/agents/{fixture}/capture.jsonl, request 1 "
        "(and context-capture.jsonl for the deferred tools), written by scripts/agent-builtins.py",
        "model": first["model"],
        "context_window": 1000000,
        "autocompact_buffer": 33000,
        "reserved_output": 0,
        "message_breakpoint": True,
        "cache_tools": "cache_control" in first["tools"][-1],
        "blocks": blocks,
        "tools": tools,
        "deferred_tools": deferred,
        "resume_reminder": resume,
        "recorded_os": recorded_os(first, r"OS Version: ([^\\\n]+)"),
        "listing": {
            "placement": "system_message",
            "separator": "\n",
            "title": fill(head + "\nAvailable agent types for the Agent tool:"),
            "between": "\n" + fill(mid) + "\n\nThe following skills are available for use with the Skill tool:\n",
            "footer": "\n\nToday's date is " + fill(tail),
            "agent_line": "- {name}: {description} (Tools: {tools})",
            "skill_line": "- {name}: {description}",
            "agents": agents,
            "skills": skills,
        },
    }


def codex(fixture="codex"):
    reqs = capture(fixture)
    first = reqs[0]["request"]
    root = HOME + "/repo/tools"
    today = re.search(r"<current_date>(\d{4}-\d\d-\d\d)</current_date>", json.dumps(first)).group(1)
    fill = lambda t: placeholders(t, root, today).replace(HOME + "/repo", "{repo}")
    blocks, tools = [], []
    for item in first["input"]:
        if item.get("type") == "additional_tools":
            # Each tool with the namespace it is sent in (its own fields).
            for ns in item["tools"]:
                head = {k: v for k, v in ns.items() if k != "tools"}
                for t in ns.get("tools", [ns]):
                    tool = {"category": "system_tools", "definition": t}
                    if "tools" in ns:
                        tool["namespace"] = head
                    tools.append(tool)
            continue
        for i, c in enumerate(item.get("content", [])):
            text = c.get("text", "")
            if item.get("role") == "developer":
                tag = re.match(r"<([a-z_ ]+)>", text)
                name = tag.group(1).replace("_", " ") if tag else "instructions"
                block = {"name": name, "category": "system_prompt", "placement": "system",
                         "cache": False, "text": fill(text)}
                # Sent as another part of the developer message before.
                if i > 0:
                    block["with_previous"] = True
                blocks.append(block)
            elif text.startswith("<environment_context>"):
                blocks.append({"name": "environment context", "category": "system_prompt",
                               "placement": "first_user_message", "cache": False, "text": fill(text)})
    # An AGENTS.md edited before a later turn: the whole section again, as
    # a message of its own, saying it replaces the earlier one.
    resume = None
    marker = "<INSTRUCTIONS>\n"
    for line in reqs[1:]:
        for item in line["request"]["input"]:
            for c in item.get("content", []) if isinstance(item.get("content"), list) else []:
                t = c.get("text", "")
                if item.get("role") == "user" and t.startswith("# AGENTS.md instructions") and "replace all previously" in t:
                    after = t.index(marker) + len(marker)
                    insert = t[after:].split("# AGENTS.md", 1)[0]
                    resume = {"title": "", "between": "", "footer": "", "after": marker, "insert": insert,
                              "how": "in a message of its own that replaces the earlier instructions, before the next user message"}
    assert resume, "the recording has a later turn with an edited AGENTS.md"
    m = meta(fixture)
    return {
        "schema": 1,
        "agent": "Codex CLI",
        "release": m["version"].split()[-1] if m["version"][0].isalpha() else m["version"],
        "recorded_from": f"tests/fixtures/agents/{fixture}/capture.jsonl, request 1, written by scripts/agent-builtins.py",
        "model": first["model"],
        "context_window": 272000,
        "autocompact_buffer": 0,
        "reserved_output": 0,
        "message_breakpoint": False,
        "blocks": blocks,
        "tools": tools,
        "deferred_tools": [],
        "resume_reminder": resume,
        # The body's other fields as sent, but the session's own ids.
        "request_fields": {k: v for k, v in first.items() if k not in (
            "model", "input", "instructions", "tools", "prompt_cache_key", "client_metadata")},
    }


def openclaw():
    reqs = capture("openclaw")
    first = reqs[0]["request"]
    root = HOME + "/workspace"
    today = re.search(r"Current date: (\d{4}-\d\d-\d\d)", json.dumps(first)).group(1)
    fill = lambda t: placeholders(t, root, today)
    stable, dynamic = first["system"][0]["text"], first["system"][1]["text"]
    # The agent's own text before the skills section the profile renders,
    # and between it and the Project Context (the user's files).
    before, rest = stable.split("\n## Skills\n", 1)
    skills_end = rest.index("\n## Skill Workshop\n")
    between, files = rest[skills_end + 1:].split("\n## Workspace Files (injected)\n", 1)
    end = files.rsplit("\n", 1)[1]
    assert end.startswith("<!-- /openclaw:attempt:"), end
    # Its built-in skills (bundled, custodian and plugin skills), entries of
    # <available_skills> as sent; the workspace's own are left out.
    listed = rest[:skills_end]
    own = set(os.listdir(os.path.join(REPO, "tests", "fixtures", "agents", "openclaw", "workspace", "skills")))
    skills = []
    for entry in re.findall(r"  <skill>\n.*?\n  </skill>", listed, re.S):
        name = re.search(r"<name>(.*?)</name>", entry).group(1)
        if name not in own:
            skills.append({"kind": "skill", "name": name, "category": "skills", "text": fill(entry)})
    m = meta("openclaw")
    return {
        "schema": 1,
        "agent": "OpenClaw",
        "release": m["version"].split()[-1] if m["version"][0].isalpha() else m["version"],
        "recorded_from": "tests/fixtures/agents/openclaw/capture.jsonl, request 1, written by scripts/agent-builtins.py",
        "model": None,
        "context_window": None,
        "autocompact_buffer": 0,
        "reserved_output": 0,
        "message_breakpoint": True,
        "cache_tools": "cache_control" in first["tools"][-1],
        "blocks": [
            {"name": "system prompt", "category": "system_prompt", "placement": "system",
             "cache": False, "join": "before_stable", "text": fill(before)},
            {"name": "workspace and docs", "category": "system_prompt", "placement": "system",
             "cache": False, "join": "before_files", "text": fill(between.rstrip("\n"))},
            {"name": "end of the stable block", "category": "system_prompt", "placement": "system",
             "cache": False, "join": "after_stable", "text": end},
            {"name": "runtime context", "category": "system_prompt", "placement": "system",
             "cache": False, "after_files": True, "text": fill(dynamic)},
        ],
        "tools": [{"category": "system_tools", "definition": t} for t in first["tools"]],
        "deferred_tools": [],
        "recorded_os": recorded_os(first, r"\| os=(\S+ \S+) \("),
        "listing": {"placement": "system", "agents": [], "skills": skills},
    }


def gemini():
    """Gemini CLI: its system instruction up to the global GEMINI.md (the
    user's own file, rendered by the profile), the head of its
    <session_context> in the first user message (the date, the system,
    the temporary folder, the folder; the folder's tree left as
    {directory_tree}, computed from the folder it is read with), its tools
    (function declarations)."""
    reqs = capture("gemini")
    # The first request of the main model (the one before is its router's).
    first = next(l["request"] for l in reqs if "tools" in l["request"])
    root = HOME + "/notes-app"
    name = root.rsplit("/", 1)[1]
    system = first["systemInstruction"]["parts"][0]["text"]
    own = system.split("\n\n<loaded_context>", 1)[0]
    head = first["contents"][0]["parts"][0]["text"].split("<loaded_context>", 1)[0]
    date = re.search(r"Today's date is ([^(]+?) \(formatted", head).group(1)
    tree_start = head.index(root + "/\n")
    tree_end = head.rindex("\n\n\n")
    head = head[:tree_start] + "{directory_tree}" + head[tree_end:]
    fill = lambda t: placeholders(t.replace(date, "{today_long}").replace(
        "/.gemini/tmp/" + name, "/.gemini/tmp/{root_name}"), root, "9999-99-99")
    tools = [{"category": "system_tools", "definition": d}
             for t in first["tools"] for d in t.get("functionDeclarations", [])]
    # Words it writes only sometimes: its "# Git Repository" section when
    # the folder it runs in, or one above it, holds a .git (renderGitRepo;
    # the recording ran in one), and the head of its "# Contextual
    # Instructions" over the user's own ~/.gemini/GEMINI.md
    # (renderUserMemory; the recording had one), which ends the text.
    memory_start = own.index("\n\n# Contextual Instructions")
    git_start = own.index("\n\n# Git Repository\n")
    sometimes = [
        {"when": "git_repository", "text": fill(own[git_start:memory_start])},
        {"when": "user_memory", "text": fill(own[memory_start:])},
    ]
    m = meta("gemini")
    return {
        "schema": 1,
        "agent": "Gemini CLI",
        "release": m["version"],
        "recorded_from": "tests/fixtures/agents/gemini/capture.jsonl, request 2 (the first to the main model), written by scripts/agent-builtins.py",
        "model": reqs[1]["model"],
        "context_window": None,
        "autocompact_buffer": 0,
        "reserved_output": 0,
        "message_breakpoint": False,
        "blocks": [
            {"name": "system prompt", "category": "system_prompt", "placement": "system",
             "cache": False, "text": fill(own)},
            {"name": "session context", "category": "system_prompt", "placement": "first_user_message",
             "cache": False, "before_files": True, "text": fill(head)},
        ],
        "tools": tools,
        "deferred_tools": [],
        "sometimes": sometimes,
        "request_fields": {k: v for k, v in first.items()
                           if k not in ("contents", "systemInstruction", "tools")},
    }


def pi():
    """Pi: its one system block's own text before "# Project Context" (the
    user's files, rendered by the profile, as "## PATH" each) and after them
    (the date and the folder it runs in, {root}: with --workdir, that
    folder); its four tools. Its docs' paths name where it was installed
    (the recording's install cache)."""
    reqs = capture("pi")
    first = reqs[0]["request"]
    root = HOME + "/weather-cli"
    cwd = root + "/src"
    system = first["system"][0]["text"]
    title = "\n\n# Project Context\n\nProject-specific instructions and guidelines:\n\n"
    own, rest = system.split(title, 1)
    files, after = rest.rsplit("\n\n\n", 1)
    assert after.startswith("Current date: "), after
    today = re.search(r"Current date: (\d{4}-\d\d-\d\d)", after).group(1)
    fill = lambda t: placeholders(t, cwd, today)
    m = meta("pi")
    return {
        "schema": 1,
        "agent": "Pi",
        "release": m["version"],
        "recorded_from": "tests/fixtures/agents/pi/capture.jsonl, request 1, written by scripts/agent-builtins.py",
        "model": reqs[0]["model"],
        "context_window": None,
        "autocompact_buffer": 0,
        "reserved_output": 0,
        "message_breakpoint": True,
        "cache_tools": "cache_control" in first["tools"][-1],
        "blocks": [
            {"name": "system prompt", "category": "system_prompt", "placement": "system",
             "cache": "cache_control" in first["system"][0], "join": "before_stable", "text": fill(own) + "\n"},
            {"name": "date and folder", "category": "system_prompt", "placement": "system",
             "cache": False, "join": "after_stable", "text": fill(after)},
        ],
        "tools": [{"category": "system_tools", "definition": t} for t in first["tools"]],
        "deferred_tools": [],
    }


def opencode():
    """OpenCode: its one system block's own text up to its <env> block
    (its prompt for Claude models, the model line, the folder it runs in
    {root}, the workspace's root {folder}, whether it is a git repository
    {is_git}, the date as JavaScript writes it {today_js}), and after the
    user's instruction files (its skills list, with its built-in skill);
    its ten tools. Its first request of a session is a title request to its
    small model: a side call, not the session's."""
    reqs = capture("opencode")
    first = next(l for l in reqs if l["request"].get("tools"))
    req = first["request"]
    folder = HOME + "/ledger"
    root = folder + "/api"
    system = req["system"][0]["text"]
    own, rest = system.split("</env>\n", 1)
    own += "</env>"
    files, after = rest.split("\n\nSkills provide ", 1)
    after = "Skills provide " + after
    today = re.search(r"Today's date: (\w{3} \w{3} \d\d \d{4})", own).group(1)
    def fill(t):
        t = t.replace(root, "{root}").replace(folder, "{folder}").replace(today, "{today_js}")
        return t.replace("Is directory a git repo: yes", "Is directory a git repo: {is_git}").replace(HOME, "{home}")
    m = meta("opencode")
    return {
        "schema": 1,
        "agent": "OpenCode",
        "release": m["version"],
        "recorded_from": "tests/fixtures/agents/opencode/capture.jsonl, request 2 (the first of the session; request 1 is its title request), written by scripts/agent-builtins.py",
        "model": first["model"],
        "context_window": None,
        "autocompact_buffer": 0,
        "reserved_output": 0,
        "message_breakpoint": True,
        "cache_tools": False,
        "blocks": [
            {"name": "system prompt", "category": "system_prompt", "placement": "system",
             "cache": "cache_control" in req["system"][0], "join": "before_stable", "text": fill(own)},
            {"name": "skills", "category": "skills", "placement": "system",
             "cache": False, "join": "after_stable", "text": fill(after)},
        ],
        "tools": [{"category": "system_tools", "definition": t} for t in req["tools"]],
        "deferred_tools": [],
    }


def main():
    agent = sys.argv[1] if len(sys.argv) > 1 else ""
    makers = {"claude-code": (claude_code, "claude-code-2.1"), "codex": (codex, "codex-0.169"),
              "codex-0.171": (lambda: codex("codex-0.171"), "codex-0.171"),
              "claude-code-2.1.332": (lambda: claude_code("claude-code-2.1.332"), "claude-code-2.1.332"),
              "openclaw": (openclaw, "openclaw-2026.9"),
              "gemini": (gemini, "gemini-0.61"),
              "pi": (pi, "pi-0.73"),
              "opencode": (opencode, "opencode-1.18")}
    if agent not in makers:
        sys.exit("usage: scripts/agent-builtins.py claude-code|claude-code-2.1.332|codex|codex-0.171|openclaw|gemini|pi|opencode [OUT.json]")
    make, profile = makers[agent]
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(REPO, "assets", "profiles", profile + ".builtin.json")
    data = make()
    for t in data["tools"] + data["deferred_tools"]:
        t["definition"].pop("cache_control", None)
    text = json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    if re.search(r"sk-(ant-|proj-)?[A-Za-z0-9_-]{16,}", text):
        sys.exit("a key-like string is in the output: not written")
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"{out}: {len(data['blocks'])} blocks, {len(data['tools'])} tools, "
          f"{len(data['deferred_tools'])} deferred tools")


if __name__ == "__main__":
    main()
