// Waiting for a run's listeners, and what they said when they failed.

// The first failure among readiness waits (each resolves with a reason or
// null), as soon as it happens, or null once every wait has succeeded.
export function firstReason(waits) {
  return new Promise((resolve) => {
    let pending = waits.length;
    if (pending === 0) resolve(null);
    for (const wait of waits) {
      wait.then((reason) => {
        if (reason) resolve(reason);
        else if (--pending === 0) resolve(null);
      });
    }
  });
}

// The last stderr lines of each child that said anything: under a failure's
// one line, a child's own words are usually the real cause.
export function stderrTails(children) {
  return children.flatMap((child) =>
    child
      .stderrTail()
      .filter(Boolean)
      .map((line) => `${child.label}: ${line}`),
  );
}
