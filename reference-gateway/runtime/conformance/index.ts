export {
  SYSTEM_CLOCK,
  clockFromTimers,
  type RuntimeClock,
  type TimerSource,
} from '../../../protocol/conformance-script/clock.ts';
export {
  COUNTER_TOOL,
  CONFORMANCE_RUNTIME_NAME,
  CONFORMANCE_TOOLS,
  ConformanceRuntime,
  KEYWORDS_TOOL,
  SCRIPT_TOOLS,
  type ConformanceRuntimeOptions,
} from './conformance-runtime.ts';
