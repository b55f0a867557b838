// goswiss's oracle harness (ours, MIT OR Apache-2.0): how OpenGotha 3.51 reads rank texts.
// For each line of the input file (UTF-8, one rank text per line), writes the text, a tab and
// what Player.convertKDPToInt gives for it (-99: OpenGotha's "no rank").
package info.vannier.gotha;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;

public class RankDump {
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: RankDump <ranks.txt> <out.tsv>");
            System.exit(2);
        }
        List<String> lines = Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8);
        try (PrintWriter w = new PrintWriter(args[1], "UTF-8")) {
            w.println("# OpenGotha " + Gotha.getGothaFullVersionNumber()
                    + " Player.convertKDPToInt of each line of ranks.txt (tests/data/opengotha/oracle/RankDump.java)");
            for (String s : lines) {
                w.println(s + "\t" + Player.convertKDPToInt(s));
            }
        }
        System.exit(0);
    }
}
