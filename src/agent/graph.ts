/**
 * The agent graph: START → llm_call → (tools | limit | llm_call | title | END),
 * tools → (llm_call | limit | title | END), limit → (llm_call | title | END), title → END.
 * Every branch is limitDecision (./limits.ts) over the state; the limit node answers
 * the calls that will not run and adds the limit note. Each node reads its run (the
 * root's request or a sub-agent's) from `config.configurable.run` (graph-deps.ts `runOf`).
 *
 * Nodes never let an abort escape as an exception: an aborted LLM stream or tool
 * becomes state (partial text, `aborted` tool results, limit='aborted'), so every
 * checkpoint holds a valid history and the next request just works.
 */
import { END, START, StateGraph, type BaseCheckpointSaver, type LangGraphRunnableConfig } from '@langchain/langgraph';
import type { StoppedReason } from '../core/events.js';
import { AgentState, type AgentStateType } from './state.js';
import { limitDecision } from './limits.js';
import { runOf, type GraphDeps, type RunControl } from './graph-deps.js';
import { schemaTokens } from './plan-call.js';
import { llmCallNode } from './llm-node.js';
import { toolsNode } from './tools-node.js';
import { factsOf, limitNode } from './limit-node.js';
import { titleNode } from './title-node.js';

export function buildGraph(deps: GraphDeps, checkpointer: BaseCheckpointSaver) {
  /** The end of a run: the root's first request names the session on its way out. */
  const finish = (reason: StoppedReason, run: RunControl): string =>
    reason === 'aborted' || run.agent || !deps.needsTitle() ? END : 'title';
  /** After an LLM call or a round of tools: run the tools, call the model again, or end (through the limit node when calls are left unanswered or a note is due). */
  const route = (state: AgentStateType, config: LangGraphRunnableConfig): string => {
    const run = runOf(config);
    const f = factsOf(state, run);
    const d = limitDecision(f);
    if (d.kind === 'tools') return 'tools';
    if (f.pending > 0 || (d.kind === 'end' && d.note)) return 'limit';
    return d.kind === 'llm' ? 'llm_call' : finish(d.reason, run);
  };
  const afterLimit = (state: AgentStateType, config: LangGraphRunnableConfig): string => {
    const run = runOf(config);
    const d = limitDecision(factsOf(state, run));
    return d.kind === 'end' ? finish(d.reason, run) : 'llm_call';
  };

  return new StateGraph(AgentState)
    .addNode('llm_call', llmCallNode(deps, schemaTokens(deps)))
    .addNode('tools', toolsNode(deps))
    .addNode('limit', limitNode(deps))
    .addNode('title', titleNode(deps))
    .addEdge(START, 'llm_call')
    .addConditionalEdges('llm_call', route, ['tools', 'limit', 'llm_call', 'title', END])
    .addConditionalEdges('tools', route, ['llm_call', 'limit', 'title', END])
    .addConditionalEdges('limit', afterLimit, ['llm_call', 'title', END])
    .addEdge('title', END)
    .compile({ checkpointer });
}

export type AgentGraph = ReturnType<typeof buildGraph>;
