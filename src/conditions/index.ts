export { findCondition, formatTime, isFalse, isTrue, removeCondition, setCondition, type Condition, type ConditionStatus, type ConditionUpdate } from './conditions.ts';
export { statusChanged } from './status-changed.ts';
export { STALLED_REASONS, withStalled } from './stalled.ts';
