// The dev relay's policy: permissive so a designer can try any event, bounded so a typo cannot award a
// million points, and rate limits far above what a person clicking (or a demo test) produces.
// Shape: RelayPolicy from src/relay (docs/relay.md).
export const DEV_POLICY = {
  allowUnknownEvents: true,
  maxPointsPerAward: 1000,
  rateLimits: {
    perPlayer: { limit: 1200, windowSeconds: 60 },
    perIp: { limit: 6000, windowSeconds: 60 },
  },
};
