// Which Node.js versions package.json's `engines.node` admits, for the shell scripts (scripts/setup.sh), which run
// before `npm ci` and the build, so before kernel/node-support.ts (the rule's home, whose NODE_FLOORS `engines.node`
// states; tests/kernel/node-support.test.ts holds this reader to that rule) can run. Written for any Node.js, however
// old (ES5, no dependency): the machine's own Node.js runs it to decide whether to fetch a supported one.
//
//   node scripts/lib/node-supported.cjs [VERSION]   exit 0 when VERSION (default: the running Node.js, e.g. 22.20.0)
//                                                   is admitted, 1 when not
//   node scripts/lib/node-supported.cjs --floors    prints the floor of each alternative, one a line (22.20.0, ...)
//   node scripts/lib/node-supported.cjs --range     prints engines.node itself (^22.20.0 || >=24.7.0)
//
// It reads only the forms the home writes: alternatives joined by `||`, each `^MAJOR.MINOR.PATCH` (that major line
// from there) or `>=MAJOR.MINOR.PATCH`; anything else exits 2 with a message on stderr.
"use strict";
var path = require("path");

var range = require(path.join(__dirname, "..", "..", "package.json")).engines.node;

function parse(version) {
  var parts = String(version).replace(/^v/, "").split(".");
  return [0, 1, 2].map(function (i) {
    return parseInt(parts[i], 10) || 0;
  });
}

function compare(a, b) {
  for (var i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

var alternatives = String(range)
  .split("||")
  .map(function (text) {
    var match = /^\s*(\^|>=)(\d+\.\d+\.\d+)\s*$/.exec(text);
    if (!match) {
      process.stderr.write(
        'scripts/lib/node-supported.cjs: package.json engines.node "' +
          range +
          '" has a form it cannot read: "' +
          text.trim() +
          '"\n',
      );
      process.exit(2);
    }
    return { caret: match[1] === "^", floor: match[2] };
  });

var argument = process.argv[2];
if (argument === "--floors") {
  alternatives.forEach(function (alternative) {
    process.stdout.write(alternative.floor + "\n");
  });
} else if (argument === "--range") {
  process.stdout.write(range + "\n");
} else {
  var version = parse(argument === undefined ? process.versions.node : argument);
  var admitted = alternatives.some(function (alternative) {
    var floor = parse(alternative.floor);
    return compare(version, floor) >= 0 && (!alternative.caret || version[0] === floor[0]);
  });
  process.exit(admitted ? 0 : 1);
}
