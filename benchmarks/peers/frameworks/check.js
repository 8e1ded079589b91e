// promptfoo assertion (type: javascript): the recorded WorfBench answer's workflow is acyclic
// and no edge names a node the answer does not define (the hand-written check's two
// properties). Returns true or a reason, as promptfoo's javascript assertions may.
module.exports = (output) => {
  const nodes = new Set(["START", "END"]);
  for (const m of output.matchAll(/^\s*(\d+)\s*:/gm)) nodes.add(m[1]);
  const at = output.indexOf("Edge:");
  const edges = at < 0 ? [] : [...output.slice(at).matchAll(/\(\s*(\w+)\s*,\s*(\w+)\s*\)/g)];
  const dangling = edges.filter((e) => !nodes.has(e[1]) || !nodes.has(e[2]));
  if (dangling.length) return `edges naming undefined nodes: ${dangling.map((e) => e[0])}`;
  const indegree = new Map([...nodes].map((n) => [n, 0]));
  const next = new Map([...nodes].map((n) => [n, []]));
  for (const [, a, b] of edges) {
    next.get(a).push(b);
    indegree.set(b, indegree.get(b) + 1);
  }
  const ready = [...nodes].filter((n) => indegree.get(n) === 0);
  let seen = 0;
  while (ready.length) {
    const n = ready.pop();
    seen += 1;
    for (const m of next.get(n)) {
      indegree.set(m, indegree.get(m) - 1);
      if (indegree.get(m) === 0) ready.push(m);
    }
  }
  return seen === nodes.size ? true : "the workflow has a cycle";
};
