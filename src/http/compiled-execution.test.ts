import { GraphQLError } from 'graphql';
import { createSchema, createYoga } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { compileOnRun, MAX_COMPILED_FIELDS, useCompiledExecution } from './compiled-execution';
import type { Logger } from '../logger';

/** When a document runs compiled and when the interpreter keeps it; errors keep their locations. */

const ITEM = { name: 'a', tags: ['x'], children: [[{ name: 'b', tags: [] }]], parent: { name: 'p', tags: [] } };

function server() {
  const logged: string[] = [];
  const note = (message: string) => void logged.push(message);
  const logger: Logger = { debug: note, info: note, warn: note, error: note };
  const yoga = createYoga({
    schema: createSchema({
      typeDefs: /* GraphQL */ `
        type Query {
          echo(text: String!): String!
          twice(n: Int!): Int!
          missing: String!
          items: [Item!]!
          item: Item!
        }
        type Item {
          name: String!
          tags: [String!]!
          children: [[Item!]]
          parent: Item
        }
        type Subscription {
          ticks: Int!
        }
      `,
      resolvers: {
        Query: {
          echo: (_: unknown, { text }: { text: string }) => text,
          twice: (_: unknown, { n }: { n: number }) => n * 2,
          missing: () => {
            throw new GraphQLError('nothing here', { extensions: { code: 'NOT_FOUND' } });
          },
          items: () => [ITEM, ITEM],
          item: () => ITEM,
        },
        Subscription: {
          ticks: {
            async *subscribe() {
              yield { ticks: 1 };
            },
          },
        },
      },
    }),
    plugins: [useCompiledExecution(logger)],
    maskedErrors: false,
    logging: false,
  });
  const ask = async (query: string, variables: Record<string, unknown> = {}, operationName?: string) => {
    const response = await yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query, variables, operationName }),
    });
    const text = await response.text();
    return { status: response.status, body: JSON.parse(text), text };
  };
  const compilations = () => logged.filter((message) => message === 'operation compiled').length;
  return { yoga, ask, compilations };
}

describe('compiled execution', () => {
  it('compiles a document on its second run, once, and answers as the interpreter did', async () => {
    const { ask, compilations } = server();
    const query = 'query Echo($text: String!) { echo(text: $text) again: echo(text: "\\"quoted\\"") }';
    const first = await ask(query, { text: 'one' });
    expect(compilations()).toBe(0);
    const second = await ask(query, { text: 'one' });
    expect(compilations()).toBe(1);
    expect(second).toEqual(first);
    expect(await ask(query, { text: 'two' })).toMatchObject({
      status: 200,
      body: { data: { echo: 'two', again: '"quoted"' } },
    });
    expect(compilations()).toBe(1);
  });

  it('compiles each operation of a document under its own name', async () => {
    const { ask, compilations } = server();
    const query = 'query A { echo(text: "a") } query B { twice(n: 2) }';
    for (let run = 0; run < 3; run += 1) {
      expect((await ask(query, {}, 'A')).body).toEqual({ data: { echo: 'a' } });
      expect((await ask(query, {}, 'B')).body).toEqual({ data: { twice: 4 } });
    }
    expect(compilations()).toBe(2);
  });

  it('leaves variables that do not fit their types to the interpreter, whose refusal names them', async () => {
    const { ask, compilations } = server();
    const query = 'query Twice($n: Int!) { twice(n: $n) }';
    const answers = [];
    for (let run = 0; run < 3; run += 1) answers.push(await ask(query, { n: 'many' }));
    expect(compilations()).toBe(0);
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    expect(answers[0]!.body.errors[0].message).toMatch(/^Variable "\$n" got invalid value "many"/);
    expect((await ask(query, { n: 3 })).body).toEqual({ data: { twice: 6 } });
    expect(compilations()).toBe(1);
    // Compiled by now, and still refused by the interpreter's words.
    expect(await ask(query, { n: 'many' })).toEqual(answers[0]);
    expect((await ask(query, { n: 4 })).body).toEqual({ data: { twice: 8 } });
  });

  it('compiles a larger operation on a later run, and never one of more than MAX_COMPILED_FIELDS fields', async () => {
    const { ask, compilations } = server();
    const aliases = (count: number) =>
      `{ ${Array.from({ length: count }, (_, index) => `e${index}: echo(text: "${index}")`).join(' ')} }`;
    const hundred = aliases(100);
    expect(compileOnRun(100)).toBe(4);
    for (let run = 1; run < 4; run += 1) await ask(hundred);
    expect(compilations()).toBe(0);
    const compiled = await ask(hundred);
    expect(compilations()).toBe(1);
    expect(compiled.body.data.e99).toBe('99');

    // The same fields reached through fragments count as often as they are spread.
    const spread = `{ ...A ...A2 } fragment A on Query { ...B ...B } fragment A2 on Query { ...B }
      fragment B on Query { ${Array.from({ length: 200 }, (_, index) => `b${index}: echo(text: "b")`).join(' ')} }`;
    for (let run = 0; run < compileOnRun(MAX_COMPILED_FIELDS) + 2; run += 1)
      expect((await ask(spread)).body.data.b199).toBe('b');
    const large = aliases(MAX_COMPILED_FIELDS + 1);
    for (let run = 0; run < compileOnRun(MAX_COMPILED_FIELDS) + 2; run += 1) await ask(large);
    expect(compilations()).toBe(1);
  });

  it('answers an error with the locations and path the interpreter gives, whatever the line breaks', async () => {
    const { ask, compilations } = server();
    for (const query of [
      '{\n  echo(text: "x")\n  missing\n}',
      '{\r\n  echo(text: "x")\r\n   missing }',
      '{\r\rmissing}',
    ]) {
      const interpreted = await ask(query);
      const compiled = await ask(query);
      expect(interpreted.body.errors[0].locations).toHaveLength(1);
      expect(compiled).toEqual(interpreted);
    }
    expect(compilations()).toBe(3);
  });

  it('compiles operations whose lists nest, answering as the interpreter does', async () => {
    const { ask, compilations } = server();
    const runs = async (query: string) => {
      const answers = [];
      for (let run = 0; run < 4; run += 1) answers.push(await ask(query));
      for (const answer of answers) expect(answer).toEqual(answers[0]);
      return answers[0]!.body.data;
    };
    expect(await runs('{ items { name tags parent { name } } }')).toEqual({
      items: [ITEM, ITEM].map(({ name, tags, parent }) => ({ name, tags, parent: { name: parent.name } })),
    });
    expect(compilations()).toBe(1);
    await runs('{ items { children { name } } }');
    await runs('{ item { children { name } } }');
    await runs(
      '{ ...Deep } fragment Deep on Query { items { ... on Item { parent { ...Named } } } } fragment Named on Item { children { name } }',
    );
    expect(compilations()).toBe(4);
  });

  it('keeps subscriptions with the interpreter', async () => {
    const { yoga, compilations } = server();
    for (let run = 0; run < 3; run += 1) {
      const response = await yoga.fetch('http://localhost/graphql?query=subscription{ticks}', {
        headers: { accept: 'text/event-stream' },
      });
      expect(await response.text()).toContain('"ticks":1');
    }
    expect(compilations()).toBe(0);
  });
});
