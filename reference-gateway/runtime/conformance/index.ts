export { SYSTEM_CLOCK, clockFromTimers, type RuntimeClock, type TimerSource } from './clock.ts';
export {
  COUNTER_TOOL,
  CONFORMANCE_RUNTIME_NAME,
  CONFORMANCE_TOOLS,
  ConformanceRuntime,
  SCRIPT_TOOLS,
  type ConformanceRuntimeOptions,
} from './conformance-runtime.ts';
