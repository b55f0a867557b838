// Prints what OpenGotha 3.51.02 makes of a rating list, and its rank/rating conversions, for
// goswiss's tests (tests/data/ratings/PROVENANCE.md says how to run it). Compiled together
// with OpenGotha's own sources, so that every value comes from OpenGotha's code.
package info.vannier.gotha;

import java.io.File;
import java.io.FileOutputStream;
import java.io.PrintStream;

public class RatingsOracle {
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new FileOutputStream(args[1]), true, "UTF-8");
        if (args[0].equals("conversions")) {
            conversions(out);
            return;
        }
        int type = args[0].equals("egf") ? RatingList.TYPE_EGF
                : args[0].equals("ffg") ? RatingList.TYPE_FFG : RatingList.TYPE_AGA;
        RatingList list = new RatingList(type, new File(args[2]));
        out.println("#date\t" + list.getStrPublicationDate());
        for (RatedPlayer p : list.getALRatedPlayers()) {
            int std = p.getStdRating();
            int byGrade = Player.convertKDPToInt(p.getStrGrade());
            out.println(String.join("\t",
                    p.getName(), p.getFirstName(), p.getCountry(), p.getClub(),
                    p.getEgfPin(), p.getFfgLicence(), p.getFfgLicenceStatus(),
                    p.getAgaId(), p.getAgaExpirationDate(), p.getStrGrade(),
                    p.getStrRawRating(), "" + std,
                    Player.convertIntToKD(Player.rankFromRating(std)),
                    byGrade == -99 ? "" : Player.convertIntToKD(byGrade)));
        }
    }

    /** raw, then the standard rating and rank OpenGotha gives it from each list. */
    static void conversions(PrintStream out) {
        out.println("#raw\tegf_std\tegf_rank\tffg_std\tffg_rank\taga_std\taga_rank\taga_text");
        for (int raw = -3200; raw <= 3200; raw++) {
            StringBuilder line = new StringBuilder("" + raw);
            for (String origin : new String[] {"EGF", "FFG", "AGA"}) {
                RatedPlayer p = new RatedPlayer("", "", "", "", "", "N", "F", "", "", raw, "", origin);
                int std = p.getStdRating();
                line.append("\t").append(std).append("\t")
                        .append(Player.convertIntToKD(Player.rankFromRating(std)));
                if (origin.equals("AGA")) line.append("\t").append(p.getStrRawRating());
            }
            out.println(line);
        }
        String[] grades = {"1k", "9k", "10k", "20k", "30k", "31k", "35k", "1d", "5d", "9d", "10d",
            "12d", "1p", "3p", "4p", "6p", "7p", "9p", "12p", "15", "5", "", " ", "k", "x5k", "5x",
            "-5k", "0k", "0d", "+3d", " 4D ", " 6k", "4K", "2P", "1ȴ", "99999999999k"};
        for (String g : grades) {
            int r = Player.convertKDPToInt(g);
            out.println("#grade\t[" + g + "]\t" + (r == -99 ? "" : Player.convertIntToKD(r)));
        }
    }
}
