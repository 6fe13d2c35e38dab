// Times OMPEval on one exact preflop all-in, for bench/bench_equity.py (our code; OMPEval itself
// is not part of this repository: the script compiles this file against a checkout given by path).
//
//   omp_driver REPS HAND HAND [HAND...]      e.g. omp_driver 9 AhKh QsQd
//
// Prints two lines, each "<method> <min ms> <median ms> <wins of each hand...>" (or
// "<method> refused"): "calc" is omp::EquityCalculator with enumerateAll and one thread, "loop"
// a plain loop over every five-card board calling omp::HandEvaluator once per hand and board.
#include <omp/EquityCalculator.h>
#include <omp/HandEvaluator.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

void report(const char* method, std::vector<double> ms, const std::vector<unsigned long long>& wins)
{
    std::sort(ms.begin(), ms.end());
    std::printf("%s %.4f %.4f", method, ms.front(), ms[ms.size() / 2]);
    for (unsigned long long w : wins)
        std::printf(" %llu", w);
    std::printf("\n");
}

void calculator(int reps, const std::vector<std::string>& hands)
{
    if (hands.size() > omp::MAX_PLAYERS) {
        std::printf("calc refused\n");
        return;
    }
    std::vector<omp::CardRange> ranges(hands.begin(), hands.end());
    std::vector<double> ms;
    std::vector<unsigned long long> wins(hands.size());
    for (int rep = 0; rep < reps; ++rep) {
        omp::EquityCalculator calc;
        auto start = Clock::now();
        if (!calc.start(ranges, 0, 0, true, 0, nullptr, 1e9, 1)) {
            std::printf("calc refused\n");
            return;
        }
        calc.wait();
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
        auto results = calc.getResults();
        for (unsigned p = 0; p < hands.size(); ++p)
            wins[p] = results.wins[p];
    }
    report("calc", ms, wins);
}

void loop(int reps, const std::vector<std::string>& hands)
{
    omp::HandEvaluator evaluator;
    std::vector<omp::Hand> holes;
    uint64_t used = 0;
    for (const std::string& text : hands) {
        uint64_t mask = omp::CardRange::getCardMask(text);
        used |= mask;
        std::array<uint8_t, 2> pair{};
        unsigned n = 0;
        for (unsigned card = 0; card < 52; ++card)
            if (mask >> card & 1)
                pair[n++] = static_cast<uint8_t>(card);
        holes.emplace_back(pair);  // without Hand::empty(): the board carries it once
    }
    std::vector<unsigned> deck;
    for (unsigned card = 0; card < 52; ++card)
        if (!(used >> card & 1))
            deck.push_back(card);
    const unsigned size = deck.size(), players = holes.size();
    std::vector<double> ms;
    std::vector<unsigned long long> wins(players);
    for (int rep = 0; rep < reps; ++rep) {
        std::fill(wins.begin(), wins.end(), 0);
        auto start = Clock::now();
        for (unsigned a = 0; a < size; ++a) {
            omp::Hand one = omp::Hand::empty() + omp::Hand(deck[a]);
            for (unsigned b = a + 1; b < size; ++b) {
                omp::Hand two = one + omp::Hand(deck[b]);
                for (unsigned c = b + 1; c < size; ++c) {
                    omp::Hand three = two + omp::Hand(deck[c]);
                    for (unsigned d = c + 1; d < size; ++d) {
                        omp::Hand four = three + omp::Hand(deck[d]);
                        for (unsigned e = d + 1; e < size; ++e) {
                            omp::Hand board = four + omp::Hand(deck[e]);
                            unsigned best = 0, winner = 0, sharing = 0;
                            for (unsigned p = 0; p < players; ++p) {
                                unsigned strength = evaluator.evaluate(board + holes[p]);
                                if (strength > best) {
                                    best = strength;
                                    winner = p;
                                    sharing = 1;
                                } else if (strength == best) {
                                    ++sharing;
                                }
                            }
                            wins[winner] += sharing == 1;
                        }
                    }
                }
            }
        }
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
    report("loop", ms, wins);
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s REPS HAND HAND [HAND...]\n", argv[0]);
        return 2;
    }
    const int reps = std::max(1, std::atoi(argv[1]));
    const std::vector<std::string> hands(argv + 2, argv + argc);
    calculator(reps, hands);
    loop(reps, hands);
    return 0;
}
