/**
 * Owners in the plan, against an in-memory ProjectApi: a file's `project`
 * recorded on what it creates, a refusal naming another project's object,
 * take-over, prune keeping what is not the project's, and a file without a
 * project leaving owners as they are.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { applyPlan, parseProject, planProject, ProjectError, readServerState, type PlanOptions } from '../../src/project/index.js';
import { FakeProjectApi } from '../helpers/project-fake.js';

let api: FakeProjectApi;

const file = (project: string | null, names: string[]) =>
  `${project ? `project: ${project}\n` : ''}functions:\n${names.map((n) => `  ${n}:\n    file: fn.js\n`).join('')}`;

async function plan(text: string, options: PlanOptions = {}) {
  const { project } = await parseProject(text, '/p/switchyard.yaml', { readFile: async () => 'export const handler = () => "ok";' });
  return planProject(project, await readServerState(api, project), options);
}

beforeEach(() => {
  api = new FakeProjectApi();
});

describe('owners', () => {
  it("records the file's project on what it creates, and refuses another project's function, naming it and its owner", async () => {
    await applyPlan(await plan(file('shop', ['hello'])), api);
    expect(api.functions.get('hello')!.project).toBe('shop');
    await expect(plan(file('blog', ['hello']).replace('fn.js', 'fn.js\n    timeout_ms: 2000'))).rejects.toThrow(ProjectError);
    await expect(plan(file('blog', ['hello']))).rejects.toThrow(
      "functions.hello: function 'hello' belongs to project 'shop', and this file is project 'blog': pass --take-over",
    );
    const taken = await plan(file('blog', ['hello']), { takeOver: true });
    expect(taken.changes).toEqual([expect.objectContaining({ action: 'update', kind: 'function', name: 'hello', fields: ['project'] })]);
    await applyPlan(taken, api);
    expect(api.functions.get('hello')!.project).toBe('blog');
  });

  it("prune deletes only the project's own; a file without a project leaves owners alone and may not change a project's function", async () => {
    await applyPlan(await plan(file('shop', ['a', 'b'])), api);
    await applyPlan(await plan(file(null, ['loose'])), api);
    expect(api.functions.get('loose')!.project).toBeNull();
    const pruned = await plan(file('shop', ['a']), { prune: true });
    expect(pruned.changes.map((c) => `${c.action} ${c.name}`)).toEqual(['delete b']);
    // The same functions, no project: nothing to do (owners are not a change), but a real change is refused.
    expect((await plan(file(null, ['a', 'b', 'loose']))).changes).toEqual([]);
    await expect(plan(file(null, ['a']).replace('fn.js', 'fn.js\n    timeout_ms: 2000'))).rejects.toThrow(
      "function 'a' belongs to project 'shop', and this file names no project",
    );
  });

  it('--only plans the one function, and refuses a name the file lacks', async () => {
    const only = await plan(file('shop', ['a', 'b']), { only: 'b' });
    expect(only.changes.map((c) => `${c.action} ${c.name}`)).toEqual(['create b']);
    await expect(plan(file('shop', ['a']), { only: 'c' })).rejects.toThrow("no function 'c' in this file");
  });
});
