@testable import BenchScenarios

/// A whole recording's messages read the way the stream hands them on (``SettledMessage``), for tests that look at
/// one message of a run that kept every message.
extension RunRecording {
    /// Message `index` as the stream would hand it on.
    func message(_ index: Int) -> SettledMessage {
        ledger.settledMessage(at: index, t0Kernel: ledger.kernelBroadcastStart(ledger.broadcastIndex(ofMessage: index)))
    }

    var reader: SettledMessageReader { SettledMessageReader(configuration) }

    /// Kernel stamps the metrics needed and did not get, as the analysis counts them.
    var missingKernelStamps: (send: Int, receive: Int) { RunAnalysis(recording: self).missingKernelStamps }

    func roundTrip(ofMessage index: Int) -> UInt64? { reader.roundTrip(message(index)) }
    func delivery(ofMessage index: Int) -> UInt64? { reader.delivery(message(index)) }
    func receiveTime(ofMessage index: Int) -> UInt64 { reader.receiveTime(message(index)) }
    func sendTime(ofMessage index: Int) -> UInt64 { reader.sendTime(message(index)) }
    func echoTime(ofMessage index: Int) -> UInt64 { reader.echoTime(message(index)) }
}
