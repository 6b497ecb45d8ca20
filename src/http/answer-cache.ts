import type { EventEmitter } from 'node:events';
import {
  getNamedType,
  getOperationAST,
  isInterfaceType,
  isObjectType,
  Kind,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Session } from '../auth/session';
import type { ExchangeServerContext } from './exchange';

/** The channel on which the database announces changes to what cached answers are made of (payload "group txid", or "* txid" for all). */
export const ANSWER_CHANGES = 'ddp_inventory';

/** What a module lets the cache keep: fields whose answers come from tables that announce their changes on ANSWER_CHANGES. */
export interface CacheableAnswers {
  /** `Type.field` of every field read from those tables alone (for the caller's groups); `__typename` always is. */
  fields: readonly string[];
  /** Types whose every field reshapes what the field above them read (an aggregate's rows): all of their fields are. */
  types?: readonly string[];
  /** `Type.field.argument`: given a value, the field reads other tables too, and its answer is not kept. */
  uncachedArguments: readonly string[];
}

/** A REST read's answer as sent: its bytes, entity tag and headers. */
export interface KeptRead {
  body: Uint8Array<ArrayBuffer>;
  etag: string;
  headers: Array<[string, string]>;
}

/** Operations of more fields than this are not considered (the walk stops there). */
const MAX_FIELDS = 500;
/** An answer larger than this is not kept: one page of 500 vehicles is about 400 kB. */
const MAX_ANSWER_BYTES = 1024 * 1024;
/** Questions remembered as asked once, so that the second asking keeps its answer. */
const ASKED_ONCE_AT_MOST = 2_000;
/** A question longer than this (its variables, mostly) is not kept: what is remembered stays small. */
const MAX_KEY_LENGTH = 2_048;
/** The longest an answer is kept without a word from the database: a safety net, not the rule. */
const KEEP_MS = 5 * 60_000;

interface Entry {
  /** An execution result, or a REST read's bytes (KeptRead). */
  answer: ExecutionResult | KeptRead;
  groups: readonly string[];
  bytes: number;
  until: number;
}

/** Per operation of a document: whether its answers may be kept, and the variables that can forbid it. */
interface OperationPlan {
  cacheable: boolean;
  /** Variables feeding an uncached argument: with a value, this run's answer is not kept. */
  uncachedVariables: string[];
}

/**
 * Recent answers to repeated reads, per caller, forgotten as soon as the database announces a change
 * to their dealer group (every writer, syncs and raw SQL included, through triggers), or when no
 * connection listens (another instance's changes would go unheard). Another tenant's changes, and
 * changes to users and keys, forget nothing: a caller whose session changed asks under another key
 * (see callerKey). A read that overlaps a change is answered but not kept. What is kept is bounded in
 * bytes, each dealer group to a quarter of them, least recently used first out.
 */
export class AnswerCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private readonly groupBytes = new Map<string, number>();
  /** Counts forget-alls, and changes per group, so a read that overlapped one is not kept. */
  private epoch = 0;
  private readonly groupChanges = new Map<string, number>();
  /** Questions asked once lately, oldest first. */
  private readonly askedOnce = new Set<string>();

  constructor(
    private readonly options: {
      maxBytes: number;
      /** Whether some database connection listens now (Database.listening). */
      listening: () => boolean;
    },
  ) {}

  /** Forgets on the database's announcements: ANSWER_CHANGES per group, and everything on the `forgetAllOn` events. */
  follow(changes: EventEmitter, forgetAllOn: readonly string[]): this {
    changes.on(ANSWER_CHANGES, (payload: string | undefined) => {
      const group = (payload ?? '*').split(' ', 1)[0]!;
      if (group === '*') this.forgetAll();
      else this.forgetGroup(group);
    });
    for (const channel of forgetAllOn) changes.on(channel, () => this.forgetAll());
    return this;
  }

  get enabled(): boolean {
    return this.options.maxBytes > 0;
  }

  /** What to compare when storing: unchanged since, or the read may predate a change. */
  stamp(groups: readonly string[]): string {
    return `${this.epoch}:${groups.map((group) => this.groupChanges.get(group) ?? 0).join(',')}`;
  }

  get(key: string): ExecutionResult | KeptRead | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (entry.until <= Date.now() || !this.options.listening()) {
      this.remove(key, entry);
      return null;
    }
    // Most recently used last.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.answer;
  }

  /**
   * Whether to keep the answer about to be computed for `key`: not on a question's first asking (a
   * one-off question, a sync pull's next cursor, neither costs the copy nor pushes answers out),
   * only from its second; and not when one is kept already (asked for afresh, it is the same).
   */
  worthKeeping(key: string): boolean {
    if (this.entries.has(key)) return false;
    if (this.askedOnce.has(key)) return true;
    if (this.askedOnce.size >= ASKED_ONCE_AT_MOST) this.askedOnce.delete(this.askedOnce.values().next().value!);
    this.askedOnce.add(key);
    return false;
  }

  /** Keeps an answer read since `stamp`, unless a change came in between or it is too large. */
  set(key: string, answer: ExecutionResult | KeptRead, groups: readonly string[], stamp: string): void {
    if (!this.options.listening() || stamp !== this.stamp(groups)) return;
    const bytes = ('body' in answer ? answer.body.length : approximateBytes(answer)) + key.length * 2;
    const share = this.options.maxBytes / 4;
    if (bytes > Math.min(MAX_ANSWER_BYTES, share)) return;
    const previous = this.entries.get(key);
    if (previous) this.remove(key, previous);
    // Room: the least recently used answers go first; while one of this answer's groups would pass
    // its share, that group's own.
    const overShare = (group: string) => (this.groupBytes.get(group) ?? 0) + bytes > share;
    for (const [oldKey, old] of this.entries) {
      const full = this.bytes + bytes > this.options.maxBytes;
      if (!full && !groups.some(overShare)) break;
      if (full || old.groups.some((group) => groups.includes(group) && overShare(group))) this.remove(oldKey, old);
    }
    this.entries.set(key, { answer, groups, bytes, until: Date.now() + KEEP_MS });
    this.askedOnce.delete(key);
    this.bytes += bytes;
    for (const group of groups) this.groupBytes.set(group, (this.groupBytes.get(group) ?? 0) + bytes);
  }

  forgetGroup(group: string): void {
    this.groupChanges.set(group, (this.groupChanges.get(group) ?? 0) + 1);
    if (!this.groupBytes.get(group)) return;
    for (const [key, entry] of this.entries) if (entry.groups.includes(group)) this.remove(key, entry);
  }

  forgetAll(): void {
    this.epoch += 1;
    this.groupChanges.clear();
    this.entries.clear();
    this.groupBytes.clear();
    this.bytes = 0;
  }

  /** What is kept now: answers and their approximate bytes. */
  get size(): { answers: number; bytes: number } {
    return { answers: this.entries.size, bytes: this.bytes };
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes;
    for (const group of entry.groups) {
      const left = (this.groupBytes.get(group) ?? 0) - entry.bytes;
      if (left > 0) this.groupBytes.set(group, left);
      else this.groupBytes.delete(group);
    }
  }
}

/** About what an answer holds in memory: its JSON length, twice for strings' UTF-16 and the objects around them. */
function approximateBytes(result: ExecutionResult): number {
  return JSON.stringify(result.data ?? null).length * 2;
}

/**
 * Serves repeated read operations from the AnswerCache: queries whose every field is one of the
 * `answers` fields, per caller (user or API key), variables and UTC day (days on lot count from it),
 * kept from a question's second asking on.
 * A caller who asks for a fresh answer (`Cache-Control: no-cache`) gets one, and the `Cache-Status`
 * header says which it was. Answers with errors are never kept. Runs after the plugins that count
 * and limit operations, so a served answer is counted and limited as a computed one.
 */
export function useAnswerCache(cache: AnswerCache, answers: CacheableAnswers): Plugin {
  const allowed = new Set(answers.fields);
  const wholeTypes = new Set(answers.types ?? []);
  const uncachedArguments = new Set(answers.uncachedArguments);
  const plans = new WeakMap<DocumentNode, Map<string, OperationPlan>>();
  const documentIds = new WeakMap<DocumentNode, number>();
  let nextDocumentId = 0;

  function planFor({ schema, document, operationName }: ExecutionArgs): OperationPlan {
    let byName = plans.get(document);
    if (!byName) plans.set(document, (byName = new Map()));
    const name = operationName ?? '';
    let plan = byName.get(name);
    if (!plan)
      byName.set(
        name,
        (plan = planOperation(schema, document, operationName, { allowed, wholeTypes, uncachedArguments })),
      );
    return plan;
  }

  return {
    onExecute({ args, setResultAndStopExecution }) {
      if (!cache.enabled) return;
      const { exchange } = args.contextValue as unknown as ExchangeServerContext;
      const session = (args.contextValue as { session?: Session }).session;
      const caller = session && callerKey(session);
      if (!exchange || !session || !caller || !session.dealerGroupIds.length) return;
      const plan = planFor(args);
      if (!plan.cacheable) return;
      const variables = args.variableValues ?? {};
      if (plan.uncachedVariables.some((name) => variables[name] !== undefined && variables[name] !== null)) return;
      if (exchange.keepsBytes) {
        // The REST layer keeps this read's bytes under its own key (restReadKey): it learns here that
        // the operation may be kept, and from when its read counts.
        exchange.cacheStatus = exchange.freshAnswer ? 'fwd=request' : 'fwd=miss';
        exchange.keepable = { groups: session.dealerGroupIds, stamp: cache.stamp(session.dealerGroupIds) };
        return;
      }
      let documentId = documentIds.get(args.document);
      if (documentId === undefined) documentIds.set(args.document, (documentId = nextDocumentId++));
      const key = keyOf(caller, `${documentId}\n${args.operationName ?? ''}\n${JSON.stringify(variables)}`);
      if (key === null) return;
      if (!exchange.freshAnswer) {
        const kept = cache.get(key);
        if (kept && !('body' in kept)) {
          exchange.cacheStatus = 'hit';
          setResultAndStopExecution(kept);
          return;
        }
      }
      exchange.cacheStatus = exchange.freshAnswer ? 'fwd=request' : 'fwd=miss';
      if (!cache.worthKeeping(key)) return;
      const groups = session.dealerGroupIds;
      const stamp = cache.stamp(groups);
      return {
        onExecuteDone({ result }) {
          if (!isAsyncIterable(result) && !result.errors?.length && result.data) cache.set(key, result, groups, stamp);
        },
      };
    },
  };
}

/**
 * The key a REST read is kept under: the caller (as callerKey), its method, path and query string as
 * sent, and the UTC day; null when it cannot be kept (no caller with groups, or too long).
 */
export function restReadKey(session: Session, url: URL): string | null {
  const caller = callerKey(session);
  if (!caller || !session.dealerGroupIds.length) return null;
  return keyOf(caller, `GET ${url.pathname}${url.search}`);
}

/**
 * The key of a caller's question (a GraphQL operation with its variables, or a REST read) and the
 * UTC day (days on lot count to today); null when it is too long to keep.
 */
function keyOf(caller: string, question: string): string | null {
  const key = `${caller}\n${question}\n${new Date().toISOString().slice(0, 10)}`;
  return key.length > MAX_KEY_LENGTH ? null : key;
}

/**
 * Who is asking, and everything of the session an answer can depend on: the principal, its role,
 * scopes, groups and a partner's consent. Answers are never shared between callers, and a caller
 * whose scopes, groups or consent change (the authenticator reads the session afresh on such a
 * change) asks under another key, so an answer is never served past what its caller may now see.
 */
function callerKey(session: Session): string | null {
  const { principal, consent } = session;
  if (principal.kind === 'anonymous') return null;
  return JSON.stringify([
    principal.kind === 'user'
      ? ['user', principal.userId, principal.role, !!principal.mustChangePassword]
      : ['key', principal.apiKeyId],
    session.scopes,
    session.dealerGroupIds,
    consent ? [consent.partnerId, consent.links] : null,
  ]);
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/**
 * Whether an operation's answers may be kept: a query, of at most MAX_FIELDS fields (fragments
 * expanded), every one of them allowed; an uncached argument given literally forbids it, one given
 * by a variable forbids the runs where the variable has a value.
 */
export function planOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  answers: { allowed: ReadonlySet<string>; wholeTypes: ReadonlySet<string>; uncachedArguments: ReadonlySet<string> },
): OperationPlan {
  const { allowed, wholeTypes, uncachedArguments } = answers;
  const refused = { cacheable: false, uncachedVariables: [] };
  const operation = getOperationAST(document, operationName);
  if (!operation || operation.operation !== 'query') return refused;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const uncachedVariables: string[] = [];
  let fields = 0;
  const walk = (selections: SelectionSetNode, parent: GraphQLNamedType | null | undefined): boolean => {
    for (const selection of selections.selections) {
      if (selection.kind === Kind.FIELD) {
        if (++fields > MAX_FIELDS) return false;
        if (selection.name.value === '__typename') continue;
        if (!isObjectType(parent) && !isInterfaceType(parent)) return false;
        const name = `${parent.name}.${selection.name.value}`;
        const field = parent.getFields()[selection.name.value];
        if (!field || !(allowed.has(name) || wholeTypes.has(parent.name))) return false;
        for (const argument of selection.arguments ?? []) {
          if (!uncachedArguments.has(`${name}.${argument.name.value}`)) continue;
          if (argument.value.kind === Kind.VARIABLE) uncachedVariables.push(argument.value.name.value);
          else if (argument.value.kind !== Kind.NULL) return false;
        }
        if (selection.selectionSet && !walk(selection.selectionSet, getNamedType(field.type))) return false;
      } else {
        const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : fragments.get(selection.name.value);
        if (!fragment) return false;
        const condition = fragment.typeCondition ? schema.getType(fragment.typeCondition.name.value) : parent;
        if (!walk(fragment.selectionSet, condition)) return false;
      }
    }
    return true;
  };
  return walk(operation.selectionSet, schema.getQueryType()) ? { cacheable: true, uncachedVariables } : refused;
}
