export * from "./rounds.ts";
export { noiseBetween, noiseMark, parseLoadAverage, parseProcStat, type NoiseMark } from "../cost/noise.ts";
