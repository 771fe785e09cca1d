// A preload that moves `Date` ahead by whole days in this process and in every node process
// started below it (put it in NODE_OPTIONS): `.ci/run` runs the demo and the runnable doc blocks
// as a user would, years from now, so a date-bound example, doc or test fails CI the day it is
// written. The offset is the same in every process, so a run of several processes (an emulator
// and the commands that talk to it) agrees on the time. DOOHCTL_CLOCK_AHEAD_DAYS=N moves it.
const days = Number(process.env.DOOHCTL_CLOCK_AHEAD_DAYS ?? "0");
if (Number.isSafeInteger(days) && days !== 0) {
  const RealDate = Date;
  const offset = days * 86_400_000;
  class AheadDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(RealDate.now() + offset);
      else super(...args);
    }
    static now() {
      return RealDate.now() + offset;
    }
  }
  globalThis.Date = AheadDate;
}
