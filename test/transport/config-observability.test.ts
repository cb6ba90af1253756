import { describe, expect, it } from "vitest";
import { readConfig } from "../../src/config.js";

describe("readConfig: logs and metrics", () => {
  it("accepts every log level, in any case, and refuses others naming the choices", () => {
    for (const level of ["fatal", "error", "warn", "info", "debug", "trace", "silent"]) {
      expect(readConfig({ KEYWARD_LOG_LEVEL: level.toUpperCase() }).logLevel).toBe(level);
    }
    expect(() => readConfig({ KEYWARD_LOG_LEVEL: "verbose" }))
      .toThrow("KEYWARD_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got verbose");
  });

  it("takes a sample rate from 0 to 1 and refuses anything else", () => {
    expect(readConfig({ KEYWARD_LOG_SAMPLE_RATE: "0" }).logSampleRate).toBe(0);
    expect(readConfig({ KEYWARD_LOG_SAMPLE_RATE: "1" }).logSampleRate).toBe(1);
    expect(readConfig({ KEYWARD_LOG_SAMPLE_RATE: "0.01" }).logSampleRate).toBe(0.01);
    for (const bad of ["-0.1", "1.5", "half", "NaN"]) {
      expect(() => readConfig({ KEYWARD_LOG_SAMPLE_RATE: bad })).toThrow(`KEYWARD_LOG_SAMPLE_RATE must be a number from 0 to 1, got ${bad}`);
    }
  });

  it("serves /metrics openly by default, behind a token when one is set, and not at all when off", () => {
    expect(readConfig({ KEYWARD_METRICS: "on" }).metrics).toEqual({ mode: "open" });
    expect(readConfig({ KEYWARD_METRICS: "OFF" }).metrics).toEqual({ mode: "off" });
    expect(readConfig({ KEYWARD_METRICS: "off", KEYWARD_METRICS_TOKEN: "metrics_token_0123456789" }).metrics).toEqual({ mode: "off" });
    expect(() => readConfig({ KEYWARD_METRICS: "yes" })).toThrow("KEYWARD_METRICS must be on or off, got yes");
  });

  it("refuses a short or spaced metrics token without echoing it", () => {
    for (const bad of ["short_secret", "metrics token with spaces"]) {
      let message = "";
      try {
        readConfig({ KEYWARD_METRICS_TOKEN: bad });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toBe("KEYWARD_METRICS_TOKEN must be 16 to 512 printable characters without spaces");
    }
  });
});
