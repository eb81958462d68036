// Ref name patterns of webhook filters (`refs/heads/*`, `refs/**/wip`), matched in time linear in the ref's length
// for a given pattern: a set of positions in the pattern is carried along the ref (an NFA simulation), so a pattern
// such as `**a**a**a**b` cannot make the matcher backtrack exponentially as a regular expression would.

type Token = { kind: 'char'; char: string } | { kind: 'star' } | { kind: 'globstar' };

/** A compiled pattern: `*` any characters but `/`, `**` any characters, everything else itself. */
export interface RefGlob {
  matches(ref: string): boolean;
}

export function refGlob(pattern: string): RefGlob {
  const tokens = tokenize(pattern);
  const accept = tokens.length;
  // Positions reachable without consuming a character: past any run of wildcards (which may match nothing).
  const closure = (states: Set<number>): Set<number> => {
    for (const state of states) {
      for (let next = state; next < accept && tokens[next]!.kind !== 'char'; next++) states.add(next + 1);
    }
    return states;
  };
  return {
    matches(ref) {
      let states = closure(new Set([0]));
      for (const char of ref) {
        const next = new Set<number>();
        for (const state of states) {
          const token = tokens[state];
          if (token === undefined) continue;
          if (token.kind === 'char') {
            if (token.char === char) next.add(state + 1);
          } else if (token.kind === 'globstar' || char !== '/') {
            next.add(state);
          }
        }
        if (next.size === 0) return false;
        states = closure(next);
      }
      return states.has(accept);
    },
  };
}

function tokenize(pattern: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] !== '*') tokens.push({ kind: 'char', char: pattern[i]! });
    else if (pattern[i + 1] === '*') {
      push(tokens, { kind: 'globstar' });
      i++;
    } else push(tokens, { kind: 'star' });
  }
  return tokens;
}

/**
 * Adds `token`, a run of wildcards kept as one (a globstar if any of it is one: it matches all the run would): a run
 * of n kept whole made each character's closure walk it again, n² a character (243 stars: seconds a branch).
 */
function push(tokens: Token[], token: Token): void {
  const last = tokens.at(-1);
  if (last === undefined || last.kind === 'char' || token.kind === 'char') tokens.push(token);
  else if (token.kind === 'globstar') tokens[tokens.length - 1] = token;
}
