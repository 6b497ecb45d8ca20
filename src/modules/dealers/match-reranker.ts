import type { Caller } from '../../caller';
import type { AppServices } from '../../app-services';
import { providerFor, recordTokens } from '../ai/ai-config.service';
import { ProviderError, type ChatProvider } from '../ai/chat-provider';
import type { CandidateReranker, MatchableDealer, MatchCandidate, MatchInput } from './matching';

/** The dealer matcher's re-ranker for the caller: the group's provider when one is enabled for it and within its daily limit, else none. */
export async function matchReranker(
  caller: Pick<Caller, 'db' | 'session'>,
  app: Pick<AppServices, 'secrets' | 'feeds'>,
  onFailure: (error: Error) => void,
) {
  const chosen = await providerFor(caller, app);
  if (!chosen?.provider.config.rerankDealerMatches || chosen.limitReached) return undefined;
  const { provider } = chosen;
  return providerReranker(
    provider,
    (prompt, completion) => recordTokens(caller.db, provider.config.dealerGroupId, prompt, completion),
    onFailure,
  );
}

/**
 * Re-ranks the dealer matcher's top candidates with the provider: it sees the messy input and the
 * candidates (our own dealers, already scored), and answers an order of their ids. Anything it
 * leaves out keeps its place after the ones it ranked; on any failure our order stands.
 */
function providerReranker(
  provider: ChatProvider,
  onUsage: (prompt: number, completion: number) => Promise<void>,
  onFailure: (error: Error) => void,
): CandidateReranker {
  return {
    async rerank<D extends MatchableDealer>(
      input: MatchInput,
      candidates: MatchCandidate<D>[],
    ): Promise<MatchCandidate<D>[]> {
      if (candidates.length < 2) return candidates;
      try {
        const answer = await provider.chat([
          {
            role: 'system',
            content:
              'You match messy dealership records to known dealers. Answer only JSON: {"order": [candidate ids, best match first]}.',
          },
          {
            role: 'user',
            content: JSON.stringify({
              input,
              candidates: candidates.map((candidate) => ({
                id: candidate.dealer.id,
                name: candidate.dealer.name,
                aliases: candidate.dealer.aliases,
                street: candidate.dealer.street,
                city: candidate.dealer.city,
                state: candidate.dealer.state,
                phone: candidate.dealer.phone,
                website: candidate.dealer.website,
                score: candidate.score,
              })),
            }),
          },
        ]);
        await onUsage(answer.usage.prompt, answer.usage.completion);
        const json = /\{[\s\S]*\}/.exec(answer.message.content ?? '')?.[0];
        const order = json ? (JSON.parse(json) as { order?: unknown }).order : null;
        if (!Array.isArray(order)) throw new ProviderError('the provider did not answer an order');
        const byId = new Map(candidates.map((candidate) => [candidate.dealer.id, candidate]));
        const ranked = [...new Set(order.filter((id): id is string => typeof id === 'string' && byId.has(id)))].map(
          (id) => byId.get(id)!,
        );
        const rest = candidates.filter((candidate) => !ranked.includes(candidate));
        return [...ranked, ...rest].map((candidate, index) =>
          candidates[index] === candidate
            ? candidate
            : { ...candidate, reasons: [...candidate.reasons, `re-ranked by ${provider.model}`] },
        );
      } catch (error) {
        onFailure(error as Error);
        return candidates;
      }
    },
  };
}
