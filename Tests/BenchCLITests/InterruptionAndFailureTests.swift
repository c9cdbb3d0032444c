import Foundation
import Glibc
import Testing

@Suite(.timeLimit(.minutes(10))) struct InterruptionAndFailureTests {
    @Test func sigtermStopsTheRunWritesWhatWasMeasuredAndExits143() throws {
        let out = temporaryFolderPath()
        let process = try BenchProcess.start([
            "roundtrip", "--clients", "2", "--count", "100000", "--interval", "2ms", "--report-every", "100ms",
            "--quiet", "--out", out,
        ])
        #expect(waitForLines(2, in: "samples.csv", under: out), "the run measured something")
        kill(process.processIdentifier, SIGTERM)
        let result = try BenchProcess.finish(process, timeout: 30)
        #expect(result.exitCode == 143, "stderr: \(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let settings = try String(contentsOfFile: folder + "/run.csv", encoding: .utf8)
        #expect(settings.contains("status,interrupted"))
        #expect(contents(of: out) == [URL(fileURLWithPath: folder).lastPathComponent])
    }

    @Test func anAddressNotOnThisMachineFailsBeforeAnyLoadWithExitThree() throws {
        let result = try BenchProcess.run(["fanout", "--host", "192.0.2.1", "--out", temporaryFolderPath()])
        #expect(result.exitCode == 3)
        #expect(result.standardError.contains("cannot listen on 192.0.2.1:0: bind: Cannot assign requested address"))
    }

    @Test(arguments: [("--tls-ca", "--tls-ca /etc/hostname: no PEM certificate in it"),
        ("--tls-pin", "--tls-pin /etc/hostname: not a PEM certificate")])
    func aTLSRunWhoseCertificateDoesNotReadFailsBeforeAnyLoadWithExitThree(option: String, message: String) throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "roundtrip", "--transport", "tls", option, "/etc/hostname", "--count", "5", "--out", out,
        ])
        #expect(result.exitCode == 3)
        #expect(result.standardError.contains(message), "\(result.standardError)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).isEmpty, "no run folder")
    }

    /// `--tls-insecure` runs, and says on stderr that nothing was checked.
    @Test func anInsecureTLSRunSaysSo() throws {
        let result = try BenchProcess.run([
            "roundtrip", "--transport", "tls", "--tls-insecure", "--count", "5", "--quiet", "--out", temporaryFolderPath(),
        ])
        #expect(result.exitCode == 0, "\(result.standardError)")
        #expect(result.standardError.contains("Warning: --tls-insecure: the server's certificate is not checked"))
    }
}

/// A sweep none of whose steps could run leaves no folder behind and names none.
@Suite(.timeLimit(.minutes(10))) struct FailedSweepTests {
    @Test func aSweepWhoseFirstStepCannotRunLeavesNoEmptySweepFolder() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run(["fanout", "--clients", "2,3", "--host", "192.0.2.1", "--out", out])
        #expect(result.exitCode == 3, "\(result.standardError)")
        #expect(!result.standardOutput.contains("sweep folder:"), "\(result.standardOutput)")
        #expect((contents(of: out) ?? []).isEmpty, "no empty sweep folder: \(contents(of: out) ?? [])")
    }
}
