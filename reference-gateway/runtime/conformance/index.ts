export { SYSTEM_CLOCK, type RuntimeClock } from './clock.ts';
export {
  COUNTER_TOOL,
  CONFORMANCE_RUNTIME_NAME,
  CONFORMANCE_TOOLS,
  ConformanceRuntime,
  SCRIPT_TOOLS,
  type ConformanceRuntimeOptions,
} from './conformance-runtime.ts';
