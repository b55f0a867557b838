// goswiss's oracle harness (ours, MIT OR Apache-2.0): loads an OpenGotha tournament file with
// OpenGotha 3.51's own classes, headless, and dumps every placement criterion of every player
// after every round, the placement order, and OpenGotha's own exports (.h9, XML re-save).
//
// It lives in OpenGotha's package because the criterion constants and ScoredPlayer's getters
// are package-private there. It calls no GUI class; run it with -Djava.awt.headless=true.
package info.vannier.gotha;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URL;
import java.net.URLConnection;
import java.net.URLStreamHandler;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;

public class OracleDump {

    // Every criterion OpenGotha 3.51 computes, by the name its XML uses.
    static final String[] NAMES = {
        "CAT", "RANK", "RATING", "NBW", "MMS", "STS", "CPS",
        "SOSW", "SOSWM1", "SOSWM2", "SODOSW", "SOSOSW", "CUSSW",
        "SOSM", "SOSMM1", "SOSMM2", "SODOSM", "SOSOSM", "CUSSM",
        "SOSTS", "EXT", "EXR", "DC", "SDC"
    };
    static final int[] CRITS = {
        PlacementParameterSet.PLA_CRIT_CAT, PlacementParameterSet.PLA_CRIT_RANK,
        PlacementParameterSet.PLA_CRIT_RATING, PlacementParameterSet.PLA_CRIT_NBW,
        PlacementParameterSet.PLA_CRIT_MMS, PlacementParameterSet.PLA_CRIT_STS,
        PlacementParameterSet.PLA_CRIT_CPS, PlacementParameterSet.PLA_CRIT_SOSW,
        PlacementParameterSet.PLA_CRIT_SOSWM1, PlacementParameterSet.PLA_CRIT_SOSWM2,
        PlacementParameterSet.PLA_CRIT_SODOSW, PlacementParameterSet.PLA_CRIT_SOSOSW,
        PlacementParameterSet.PLA_CRIT_CUSSW, PlacementParameterSet.PLA_CRIT_SOSM,
        PlacementParameterSet.PLA_CRIT_SOSMM1, PlacementParameterSet.PLA_CRIT_SOSMM2,
        PlacementParameterSet.PLA_CRIT_SODOSM, PlacementParameterSet.PLA_CRIT_SOSOSM,
        PlacementParameterSet.PLA_CRIT_CUSSM, PlacementParameterSet.PLA_CRIT_SOSTS,
        PlacementParameterSet.PLA_CRIT_EXT, PlacementParameterSet.PLA_CRIT_EXR,
        PlacementParameterSet.PLA_CRIT_DC, PlacementParameterSet.PLA_CRIT_SDC
    };

    static String critName(int c) {
        if (c == PlacementParameterSet.PLA_CRIT_NUL) return "NULL";
        for (int i = 0; i < CRITS.length; i++) if (CRITS[i] == c) return NAMES[i];
        return "?" + c;
    }

    /** The criteria of a variant: "T" = the tournament's own; "DC"/"SDC" = the main score, then
     *  DC or SDC, then the tournament's other criteria (so DC/SDC are computed and used). */
    static int[] variant(String v, int[] own, int main) {
        if (v.equals("T")) return own.clone();
        int dir = v.equals("DC") ? PlacementParameterSet.PLA_CRIT_DC : PlacementParameterSet.PLA_CRIT_SDC;
        int[] c = new int[PlacementParameterSet.PLA_MAX_NUMBER_OF_CRITERIA];
        Arrays.fill(c, PlacementParameterSet.PLA_CRIT_NUL);
        c[0] = main;
        c[1] = dir;
        int k = 2;
        for (int x : own) {
            if (k >= c.length) break;
            if (x == PlacementParameterSet.PLA_CRIT_NUL || x == main
                    || x == PlacementParameterSet.PLA_CRIT_DC || x == PlacementParameterSet.PLA_CRIT_SDC) continue;
            c[k++] = x;
        }
        return c;
    }

    public static void main(String[] args) {
        // The tournament is an exported RMI object, whose thread would keep the JVM alive:
        // always leave through System.exit.
        try {
            run(args);
        } catch (Throwable e) {
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    static void run(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: OracleDump <tournament.xml> <output prefix>");
            System.exit(2);
        }
        // OpenGotha's XML writer asks a web service for the machine's IP address; refuse every
        // URL so the harness never touches the network and its output does not depend on it.
        URL.setURLStreamHandlerFactory(protocol -> new URLStreamHandler() {
            @Override
            protected URLConnection openConnection(URL u) throws IOException {
                throw new IOException("network disabled in the oracle harness");
            }
        });
        File in = new File(args[0]);
        String out = args[1];
        Tournament t = new Tournament();
        String report = ExternalDocument.importTournamentFromXMLFile(in, t, true, true, true, true, true);
        System.err.println(in.getName() + ": " + report.replace('\n', ' '));

        TournamentParameterSet tps = t.getTournamentParameterSet();
        GeneralParameterSet gps = tps.getGeneralParameterSet();
        PlacementParameterSet pps = tps.getPlacementParameterSet();
        int nbRounds = gps.getNumberOfRounds();
        int[] own = pps.getPlaCriteria();
        int main = pps.mainCriterion();

        try (PrintWriter w = new PrintWriter(out + ".criteria.tsv", "UTF-8")) {
            w.println("# OpenGotha " + Gotha.getGothaFullVersionNumber() + " criteria dump of " + in.getName()
                    + " (tests/data/opengotha/oracle/OracleDump.java); values in OpenGotha's internal units"
                    + " (NBW/MMS/SOS...: half points; SODOS: quarter points; CAT: -category)");
            String[] variants = {"T", "DC", "SDC"};
            for (String v : variants) {
                StringBuilder sb = new StringBuilder("# variant " + v + ":");
                for (int c : variant(v, own, main)) sb.append(' ').append(critName(c));
                w.println(sb);
            }
            StringBuilder h = new StringBuilder("variant\tround\tpos\tplace\tkey");
            for (String n : NAMES) h.append('\t').append(n);
            w.println(h);
            for (String v : variants) {
                int[] crit = variant(v, own, main);
                PlacementParameterSet vpps = new PlacementParameterSet();
                vpps.setPlaCriteria(crit);
                TournamentParameterSet vtps = new TournamentParameterSet(tps);
                vtps.setPlacementParameterSet(vpps);
                for (int r = 0; r < nbRounds; r++) {
                    ArrayList<ScoredPlayer> al = t.orderedScoredPlayersList(r, vpps);
                    String[] place = ScoredPlayer.positionStrings(al, r, vtps);
                    for (int i = 0; i < al.size(); i++) {
                        ScoredPlayer sp = al.get(i);
                        StringBuilder sb = new StringBuilder();
                        sb.append(v).append('\t').append(r + 1).append('\t').append(i + 1).append('\t')
                                .append(place[i].trim()).append('\t').append(sp.getKeyString());
                        for (int c : CRITS) sb.append('\t').append(sp.getCritValue(c, r));
                        w.println(sb);
                    }
                }
            }
        }

        ExternalDocument.generateH9File(t, new File(out + ".h9"), true);
        ExternalDocument.generateH9File(t, new File(out + ".nobydef.h9"), false);
        ExternalDocument.generateXMLFile(t, new File(out + ".resave.xml"));
    }
}
