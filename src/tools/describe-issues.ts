interface Issue {
  path?: PropertyKey[];
  message?: string;
  code?: string;
  /** zod's invalid_union: each alternative's own issues. */
  errors?: Issue[][];
}

/**
 * Why an input does not fit a tool's schema, from `safeParse`'s error: `path: message; …` (zod's
 * issues, or an MCP schema's). Where the input fits none of a union's alternatives, the issues of the
 * alternative it came closest to are named, not zod's bare "Invalid input".
 */
export function describeIssues(error: unknown): string {
  const issues = (error as { issues?: Issue[] } | undefined)?.issues;
  if (!Array.isArray(issues) || issues.length === 0) return String(error);
  return issues.flatMap((issue) => lines(issue, [])).join('; ');
}

function lines(issue: Issue, prefix: PropertyKey[]): string[] {
  const path = [...prefix, ...(issue.path ?? [])];
  const closest = issue.code === 'invalid_union' && Array.isArray(issue.errors) ? closestAlternative(issue.errors) : undefined;
  if (closest) return closest.flatMap((inner) => lines(inner, path));
  const where = path.map(String).join('.');
  return [where ? `${where}: ${issue.message}` : String(issue.message)];
}

/** The alternative the input came closest to: one whose type it has (its issues are inside it), then the fewest issues. */
function closestAlternative(alternatives: Issue[][]): Issue[] | undefined {
  const atRoot = (issues: Issue[]) => issues.filter((i) => (i.path ?? []).length === 0).length;
  return alternatives.filter((a) => a.length > 0).sort((a, b) => atRoot(a) - atRoot(b) || a.length - b.length)[0];
}
